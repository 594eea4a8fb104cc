/**
 * The viewer's AI tools (issue #28): describe and tag the frame shown (everyone who sees the item, as the API
 * allows), edit the item into a new version and generate a picture into a folder (people who may change
 * things: viewers get no write or save controls). All model work runs on the server's model workers.
 */
import { useState } from 'preact/hooks';
import { canWrite } from '../../../lib/session';
import type { Frame, MediaItem } from '../types';
import { DescribeTool } from './DescribeTool';
import { EditTool } from './EditTool';
import { GenerateTool } from './GenerateTool';
import { TagTool } from './TagTool';
import './ai.css';

type Tool = 'describe' | 'tag' | 'edit' | 'generate';

const LABELS: Record<Tool, string> = { describe: 'Describe', tag: 'Tag', edit: 'Edit', generate: 'Generate' };

export function AiTools(props: { media: MediaItem; frame: Frame | undefined; onChanged: () => void }) {
  const { media, frame } = props;
  const writable = canWrite();
  const [tool, setTool] = useState<Tool | null>(null);
  const tools: Tool[] = [
    ...(frame ? (['describe', 'tag'] as Tool[]) : []),
    ...(writable && media.type === 'image' ? (['edit'] as Tool[]) : []),
    ...(writable ? (['generate'] as Tool[]) : []),
  ];
  return (
    <section class="viewer-section ai-tools" aria-labelledby="ai-tools-title">
      <h2 id="ai-tools-title">AI tools</h2>
      <div class="ai-tabs" role="group" aria-label="AI tool">
        {tools.map((t) => (
          <button key={t} type="button" aria-pressed={tool === t} onClick={() => setTool(tool === t ? null : t)}>
            {LABELS[t]}
          </button>
        ))}
      </div>
      {tool === 'describe' && frame && (
        <DescribeTool key={frame.id} frame={frame} canWrite={writable} onChanged={props.onChanged} />
      )}
      {tool === 'tag' && frame && (
        <TagTool key={frame.id} media={media} frame={frame} canWrite={writable} onChanged={props.onChanged} />
      )}
      {tool === 'edit' && writable && <EditTool media={media} onChanged={props.onChanged} />}
      {tool === 'generate' && writable && <GenerateTool media={media} />}
      {!writable && (
        <p class="muted">As a viewer you can describe and tag; saving, editing and generating are for members.</p>
      )}
    </section>
  );
}
