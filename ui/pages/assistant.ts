import {
  estimateCost,
  type ApprovalRecord,
  type Brain,
  type DelegationRecord,
  type UsageRow,
} from '../../src/index.js';
import { usageChart } from '../chart.js';
import { html, href, raw, seg, type Html } from '../html.js';
import { agentLink, empty, page, time, type PageContext } from '../layout.js';

/** Whether the assistant has left anything to show (sessions, usage or approvals). */
export function assistantHasData(brain: Brain): boolean {
  return (
    brain.assistant.sessions().length > 0 ||
    brain.assistant.approvals({ limit: 1 }).length > 0 ||
    brain.assistant.usage({ by: 'day' }).length > 0 ||
    brain.assistant.cronRuns({ limit: 1 }).length > 0 ||
    brain.assistant.delegations({ limit: 1 }).length > 0 ||
    brain.assistant.reminders().length > 0
  );
}

/** The assistant: its sessions, tokens per day and model, and the approvals waiting for the owner. */
export function assistantPage(brain: Brain, ctx: PageContext, notice?: string): Html {
  const sessions = brain.assistant.sessions();
  const pending = brain.assistant.approvals({ pending: true, limit: 100 });
  const recent = brain.assistant.approvals({ limit: 20 }).filter((a) => a.decision !== 'pending');
  const days = brain.assistant.usage({ by: 'day' });
  const runs = brain.assistant.cronRuns({ limit: 20 });
  const reminders = brain.assistant.reminders();
  const tasks = brain.assistant.tasks();
  const delegated = brain.assistant.delegations({ limit: 20 });
  const sessionList = sessions.length
    ? html`<div class="scroll">
        <table>
          <caption class="sr">
            Sessions
          </caption>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Agent</th>
              <th scope="col">Owner</th>
              <th scope="col">Threads</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            ${sessions.map(
              (s) =>
                html`<tr>
                  <td><a href="${href(`/threads/${seg(s.thread_id)}`)}">${s.name}</a></td>
                  <td>${agentLink(s.agent)}</td>
                  <td>${agentLink(s.owner)}</td>
                  <td class="num">${s.threads}</td>
                  <td>${time(s.created_at)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    : empty('No sessions yet.');
  return page(
    'Assistant',
    ctx,
    html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
      <section aria-labelledby="h-pending">
        <h2 id="h-pending">Waiting for approval (${pending.length})</h2>
        ${
          pending.length
            ? html`<ul class="approvals">
                  ${pending.map((a) => approvalItem(a, ctx.csrf, ctx.owner ?? false))}
                </ul>
                ${ctx.owner ? '' : html`<p class="meta">Only the owner answers these.</p>`}`
            : empty('Nothing is waiting.')
        }
      </section>
      <section aria-labelledby="h-usage">
        <h2 id="h-usage">Tokens per day and model</h2>
        ${days.length ? usageChart(days.slice(0, 30)) : empty('No model calls recorded.')}
        ${days.length ? costTable(days.slice(0, 30)) : ''}
      </section>
      <section aria-labelledby="h-scheduled">
        <h2 id="h-scheduled">Scheduled</h2>
        ${scheduled(runs, reminders, tasks)}
      </section>
      <section aria-labelledby="h-delegated">
        <h2 id="h-delegated">
          Delegated tasks (${delegated.filter((d) => d.status === 'running').length} running)
        </h2>
        ${delegatedTable(delegated, sessions)}
      </section>
      <section aria-labelledby="h-sessions">
        <h2 id="h-sessions">Sessions</h2>
        ${sessionList}
      </section>
      <section aria-labelledby="h-decided">
        <h2 id="h-decided">Recent decisions</h2>
        ${
          recent.length
            ? html`<ul>
                ${recent.map(
                  (a) =>
                    html`<li>
                      <pre class="body">${a.summary}</pre>
                      <strong>${a.decision}</strong> by ${a.decided_by ?? '?'} ${time(a.decided_at)}
                    </li>`,
                )}
              </ul>`
            : empty('None yet.')
        }
      </section>`,
  );
}

/** The newest delegated tasks, running or ended: read-only, each linked to its session's thread. */
function delegatedTable(
  tasks: DelegationRecord[],
  sessions: Array<{ name: string; thread_id: string }>,
): Html {
  if (tasks.length === 0) return empty('No task was delegated.');
  const threads = new Map(sessions.map((s) => [s.name, s.thread_id]));
  return html`<div class="scroll">
    <table>
      <caption class="sr">
        Delegated tasks
      </caption>
      <thead>
        <tr>
          <th scope="col">Task</th>
          <th scope="col">Status</th>
          <th scope="col">From</th>
          <th scope="col">Started</th>
          <th scope="col">What</th>
        </tr>
      </thead>
      <tbody>
        ${tasks.map((t) => {
          const name = `task/${t.id}`;
          const thread = threads.get(name);
          return html`<tr>
            <td>
              ${thread ? html`<a href="${href(`/threads/${seg(thread)}`)}">${name}</a>` : name}
            </td>
            <td>${t.status}${t.wait ? '' : ' (background)'}</td>
            <td>${t.session}</td>
            <td>${time(t.started_at)}</td>
            <td>${t.task.length > 120 ? `${t.task.slice(0, 119)}…` : t.task}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

/** A waiting question with Approve and Deny, which only the owner can press. */
function approvalItem(a: ApprovalRecord, csrf: string, owner: boolean): Html {
  const form = (decision: 'approved' | 'denied', label: string) =>
    html`<form method="post" action="/approvals/${a.id}" class="inline">
      <input type="hidden" name="csrf" value="${csrf}" /><input
        type="hidden"
        name="decision"
        value="${decision}"
      />
      <button
        type="submit"
        class="${decision}"
        aria-label="${label} request ${a.id}: ${a.tool}"
        ${owner ? '' : raw('disabled')}
      >
        ${label}
      </button>
    </form>`;
  return html`<li class="approval" id="approval-${a.id}">
    <pre class="body">${a.summary}</pre>
    <p class="meta">
      asked
      ${time(a.asked_at)}${a.session ? html` · session ${a.session}` : ''}${
        a.message_id
          ? html` · <a href="${href(`/provenance/${seg(a.message_id)}`)}">message</a>`
          : ''
      }
    </p>
    ${form('approved', 'Approve')} ${form('denied', 'Deny')}
  </li>`;
}

/** Tokens and the estimated cost of each day (list prices; "unknown" for a model without one). */
function costTable(days: UsageRow[]): Html {
  return html`<div class="scroll">
    <table>
      <caption>
        Estimated cost per day
      </caption>
      <thead>
        <tr>
          <th scope="col">Day (UTC)</th>
          <th scope="col">Calls</th>
          <th scope="col">Tokens in / out</th>
          <th scope="col">Models</th>
          <th scope="col">Cost (USD)</th>
        </tr>
      </thead>
      <tbody>
        ${days.map((d) => {
          const cost = estimateCost(d.models);
          return html`<tr>
            <td>${d.key}</td>
            <td class="num">${d.calls}</td>
            <td class="num">${d.input_tokens} / ${d.output_tokens}</td>
            <td>${[...new Set(d.models.map((m) => m.model))].join(', ')}</td>
            <td class="num">${cost === null ? 'unknown' : cost.toFixed(4)}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

/** The scheduler's work: the last cron runs, pending reminders and open tasks. */
function scheduled(
  runs: ReturnType<Brain['assistant']['cronRuns']>,
  reminders: ReturnType<Brain['assistant']['reminders']>,
  tasks: ReturnType<Brain['assistant']['tasks']>,
): Html {
  if (!runs.length && !reminders.length && !tasks.length)
    return empty('No cron runs, reminders or tasks yet.');
  return html`${
    runs.length
      ? html`<h3>Last cron runs</h3>
          <ul>
            ${runs.map(
              (r) =>
                html`<li>
                  <code>${r.job}</code> due ${time(r.due_at)}: <strong>${r.outcome}</strong>${
                    r.late ? ' (late)' : ''
                  }${r.delivered ? ' · delivered' : ''}${r.detail ? html` — ${r.detail}` : ''}
                </li>`,
            )}
          </ul>`
      : ''
  }${
    reminders.length
      ? html`<h3>Reminders</h3>
          <ul>
            ${reminders.map(
              (r) =>
                html`<li>
                  ${time(r.due_at)} (${r.mode}${r.repeat ? html`, repeats ${r.repeat}` : ''}):
                  ${r.text}
                </li>`,
            )}
          </ul>`
      : ''
  }${
    tasks.length
      ? html`<h3>Open tasks</h3>
          <ul>
            ${tasks.map((t) => html`<li>${t.title}${t.due_at ? html` — due ${time(t.due_at)}` : ''}</li>`)}
          </ul>`
      : ''
  }`;
}
