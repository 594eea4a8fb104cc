/**
 * The selection bar's "Describe / Tag…" button, added when this module is first imported (by Browse): it
 * opens SelectionAiDialog over the page, rendered into a container of its own, removed when it closes.
 */
import { render } from 'preact';
import { addSelectionAction, type SelectionAction } from '../../screens/browse/selection';
import { SelectionAiDialog } from './SelectionAiDialog';

export const describeTagAction: SelectionAction = {
  id: 'ai-describe-tag',
  label: 'Describe / Tag…',
  run: (ctx) => {
    const host = document.createElement('div');
    document.body.append(host);
    const close = () => {
      render(null, host);
      host.remove();
    };
    render(<SelectionAiDialog ctx={ctx} onClose={close} />, host);
  },
};

addSelectionAction(describeTagAction);
