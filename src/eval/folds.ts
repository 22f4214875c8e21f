/**
 * Leave-one-out cross-validation of tuned constants: for each fold one unit (a conversation) is
 * held out, a setting is chosen on the others, and the held-out unit scores it. A setting is
 * adopted only when every fold chooses it: one that wins on one fold only fits that fold.
 */

/** One unit's result for one setting: a sum of per-question scores and how many questions. */
export interface Tally {
  sum: number;
  n: number;
}

export interface Fold<S> {
  held_out: string;
  /** The setting chosen on the other units, and its mean there. */
  chosen: S;
  train: number;
  /** The chosen setting's mean on the held-out unit. */
  held_out_score: number;
  /** The default setting's mean on the held-out unit, for comparison. */
  default_score: number;
}

export interface CrossValidation<S> {
  folds: Fold<S>[];
  /** Mean over every question of the held-out units, each scored with its fold's choice. */
  cross_validated: number;
  /** The same for the default setting. */
  default_cross_validated: number;
  /** Chosen on all units together (the dev figure), and its mean there. */
  dev_choice: S;
  dev: number;
  /** The setting every fold chose, if they agree: the only one to adopt. */
  adopt: S | undefined;
}

function mean(tallies: Tally[]): number {
  const n = tallies.reduce((s, t) => s + t.n, 0);
  return n === 0 ? 0 : tallies.reduce((s, t) => s + t.sum, 0) / n;
}

/**
 * `results[unit][setting]`: each unit's tally under each setting (by its key). Ties between
 * settings go to the default, then to the first key, so a choice never rests on a tie.
 */
export function crossValidate<S>(
  results: Record<string, Record<string, Tally>>,
  settings: Record<string, S>,
  defaultKey: string,
): CrossValidation<S> {
  const units = Object.keys(results);
  const keys = [defaultKey, ...Object.keys(settings).filter((k) => k !== defaultKey)];
  const best = (among: string[]): { key: string; score: number } => {
    let top = { key: defaultKey, score: -Infinity };
    for (const key of keys) {
      const score = mean(among.map((u) => results[u]![key]!));
      if (score > top.score + 1e-12) top = { key, score };
    }
    return top;
  };
  const folds = units.map((held) => {
    const choice = best(units.filter((u) => u !== held));
    return {
      held_out: held,
      chosen: settings[choice.key]!,
      chosenKey: choice.key,
      train: choice.score,
      held_out_score: mean([results[held]![choice.key]!]),
      default_score: mean([results[held]![defaultKey]!]),
    };
  });
  const dev = best(units);
  const agreed = folds.every((f) => f.chosenKey === folds[0]!.chosenKey);
  return {
    folds: folds.map(({ chosenKey: _k, ...f }) => f),
    cross_validated: mean(folds.map((f) => results[f.held_out]![f.chosenKey]!)),
    default_cross_validated: mean(units.map((u) => results[u]![defaultKey]!)),
    dev_choice: settings[dev.key]!,
    dev: dev.score,
    adopt: agreed && folds.length > 0 ? settings[folds[0]!.chosenKey] : undefined,
  };
}
