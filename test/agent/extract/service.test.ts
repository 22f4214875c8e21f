import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildComponents } from '../../../agent/service/components.js';
import { systemClock } from '../../../src/index.js';
import { serviceFixture, type ServiceFixture } from '../service/helpers.js';
import { entriesJson } from './helpers.js';

let f: ServiceFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const extraction = async (fixture: ServiceFixture, extractThreads: 'all' | 'none' = 'all') =>
  (
    await buildComponents(fixture.config, {
      brain: fixture.t.brain,
      clock: systemClock,
      log: fixture.log,
      extractThreads,
    })
  ).find((c) => c.name === 'extraction');

describe("brain agent's extraction", () => {
  it('reads new messages with the model extract.model names, in the background', async () => {
    f = await serviceFixture({ file: { extract: { model: 'claude-fake' } } });
    const fixture = f;
    const said = fixture.t.brain.messages.send({
      from: 'ann',
      to: 'bo',
      subject: 'launch',
      body: 'We launch on Monday.',
    });
    fixture.fake.script.push({
      text: entriesJson([
        { content: 'The launch is on Monday', category: 'decision', importance: 2 },
      ]),
    });
    const component = (await extraction(fixture))!;
    await component.start(fixture.host);
    try {
      await vi.waitFor(() => expect(fixture.t.brain.knowledge.insights()).toHaveLength(1), {
        timeout: 5_000,
      });
    } finally {
      await component.stop();
    }
    expect(fixture.t.brain.knowledge.insights()[0]).toMatchObject({
      content: 'The launch is on Monday',
      extractor: 'model@1',
      sources: [{ message_id: said.id }],
    });
    expect(fixture.logs).toContainEqual(
      expect.objectContaining({
        event: 'extraction.started',
        fields: { extractor: 'model@1', threads: 'all' },
      }),
    );
    expect(fixture.t.brain.assistant.usage({ by: 'source' })).toMatchObject([
      { key: 'extraction', calls: 1 },
    ]);
  });

  it('reads with the offline extractor without extract.model, and not at all with extract.threads none', async () => {
    f = await serviceFixture();
    const fixture = f;
    const offline = (await extraction(fixture))!;
    await offline.start(fixture.host);
    await offline.stop();
    expect(fixture.logs).toContainEqual(
      expect.objectContaining({
        event: 'extraction.started',
        fields: { extractor: 'offline@1', threads: 'all' },
      }),
    );
    await fixture.close();

    f = await serviceFixture({ file: { extract: { model: 0, threads: 'none' } } });
    expect(await extraction(f, 'all')).toBeUndefined();
  });

  it('lets extract.threads beat BRAIN_EXTRACT_THREADS', async () => {
    f = await serviceFixture({ file: { extract: { threads: 'tagged' } } });
    const fixture = f;
    const component = (await extraction(fixture, 'none'))!;
    await component.start(fixture.host);
    await component.stop();
    expect(fixture.logs).toContainEqual(
      expect.objectContaining({
        event: 'extraction.started',
        fields: { extractor: 'offline@1', threads: 'tagged' },
      }),
    );
  });
});
