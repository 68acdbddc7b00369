import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ControlClient } from '../api/control-client';
import { LiveProvider } from '../live/live-context';
import { initialLiveState, liveReducer } from '../live/live-state';
import { ConfirmQuestion } from './confirm-question';

const client = {} as ControlClient;
const live = liveReducer(initialLiveState, { type: 'subscription-started' });

describe('in-page confirmation', () => {
  it('asks in the page, as an alert dialog named by its question, with the action and a way out', () => {
    const html = renderToStaticMarkup(
      <LiveProvider value={{ live, client }}>
        <ConfirmQuestion confirm="Revoke" keep="Keep it" onConfirm={() => {}} onKeep={() => {}}>
          Revoke mobile (key_0a1b2c3d4e) for good?
        </ConfirmQuestion>
      </LiveProvider>,
    );
    expect(html).toMatch(/^<div class="notice confirm-question" role="alertdialog" aria-labelledby="([^"]+)" data-testid="confirm-question"><p id="\1">Revoke mobile \(key_0a1b2c3d4e\) for good\?<\/p>/);
    expect(html).toContain('<button type="button" class="button-danger">Revoke</button>');
    expect(html).toContain('<button type="button">Keep it</button>');
  });
});
