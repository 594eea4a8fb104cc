-- The folder tree lists the subfolders of one folder level. Without this index that listing
-- steps over every item of the level (100,000 in a big folder) to find its few folders;
-- with it, the folders of a level are one range. Partial: only live folders, a small index.
CREATE INDEX media_live_folders ON media(parent_path, name COLLATE NOCASE, id)
  WHERE type = 'folder' AND status = 'active' AND is_current = 1;
