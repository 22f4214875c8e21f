import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { commandName } from '../config.js';
import { bold, cyan, dim, oneLine, printJson, println } from '../output.js';
import type { GlobalOptions } from '../run.js';
import { printProvenance } from './knowledge.js';
import { openBrain } from '../../src/index.js';

/** Two agents talk in a thread, one learns from it, a search finds both, provenance ties them together. */
export function registerDemo(program: Command, globals: () => GlobalOptions): void {
  program
    .command('demo')
    .description('a guided tour on a scratch database: messages, knowledge, search, provenance')
    .action(async () => {
      const { db, json } = globals();
      const dbPath = db ?? join(mkdtempSync(join(tmpdir(), 'brain-demo-')), 'brain.db');
      const brain = await openBrain({ dbPath });
      try {
        const step = (text: string) => json || println(`\n${bold(text)}`);
        const say = (text: string) => json || println(text);

        step('1. helios sends nova a finding');
        const first = brain.messages.send({
          from: 'helios',
          to: 'nova',
          subject: 'spread gate',
          priority: 'action',
          body: 'Backtest over 14 months: the spread gate has zero predictive power over fills. Keep it or drop it?',
        });
        say(`   ${cyan(first.id)} in thread ${cyan(first.thread_id)}`);
        say(
          `   nova has ${brain.messages.poll('nova').unread} unread; helios has ${brain.messages.poll('helios').unread}`,
        );

        step('2. nova reads it, answers in the thread, and acknowledges');
        const [incoming] = brain.messages.read({ agent: 'nova' });
        say(`   nova read: “${oneLine(incoming!.body, 70)}”`);
        const reply = brain.messages.send({
          from: 'nova',
          to: 'helios',
          reply_to: first.id,
          body: 'Agreed. Dropping the spread gate from the entry filter; the EV halt stays.',
        });
        brain.messages.ack({ message_id: first.id, agent: 'nova', body: 'dropping it' });
        say(`   reply ${cyan(reply.id)} in the same thread; ack recorded`);

        step('3. nova stores what it learned, pointing back at the message');
        const memory = brain.knowledge.remember({
          agent: 'nova',
          content: 'The spread gate does not predict fills; removed from the entry filter.',
          categories: ['trading', 'decisions'],
          importance: 2.5,
          source_message_id: first.id,
        });
        const atom = brain.knowledge.createAtom({
          agent: 'nova',
          subject: 'spread gate',
          action: 'used as an entry filter',
          outcome: 'no predictive power over fills',
          consequences: 'removed from the entry filter',
          confidence: 0.9,
          source_message_id: first.id,
        });
        say(
          `   memory ${cyan(memory.id)} and atom ${cyan(atom.id)}, both sourced from ${cyan(first.id)}`,
        );

        step('4. one search finds the conversation and the knowledge together');
        const result = brain.search.search({ query: 'does the spread gate predict fills?' });
        for (const h of result.hits)
          say(`   ${dim(h.type.padEnd(7))} ${cyan(h.id)}  ${oneLine(h.snippet, 70)}`);

        step(`5. provenance: from the memory back to the message that produced it`);
        const provenance = brain.knowledge.provenance({ id: memory.id });
        if (!json) printProvenance(provenance);

        if (json) {
          return printJson({
            db: dbPath,
            thread_id: first.thread_id,
            messages: [first.id, reply.id],
            stm: memory.id,
            atom: atom.id,
            hits: result.hits.map((h) => ({ type: h.type, id: h.id })),
          });
        }
        println(`\n${bold('Next, try')} ${dim('(the demo database is kept at ' + dbPath + ')')}`);
        const brainCmd = commandName();
        const prefix = `BRAIN_DB=${dbPath} ${brainCmd}`;
        for (const cmd of [
          `${prefix} search "entry filter"`,
          `${prefix} provenance ${first.id}`,
          `${prefix} thread ${first.thread_id}`,
          `${prefix} send --agent nova --to helios --body "what about the EV halt?"`,
          `${prefix} poll --agent helios`,
          `${brainCmd} --help`,
        ]) {
          println(`  ${cmd}`);
        }
      } finally {
        brain.close();
      }
    });
}
