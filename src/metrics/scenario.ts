/**
 * Scenario goal completion (SGC), AppWorld's second metric: tasks of one scenario share a task
 * id up to the last `_` (`82e2fac_1`, `82e2fac_2`, `82e2fac_3` → `82e2fac`), and a scenario
 * counts as completed only when every one of its tasks in the split passed. Task goal
 * completion (TGC) is the plain accuracy.
 */

/** The scenario of a task id: the part before the last `_`; an id without one is its own. */
export function scenarioOf(taskId: string): string {
  const cut = taskId.lastIndexOf('_');
  return cut > 0 ? taskId.slice(0, cut) : taskId;
}

export type ScenarioOutcome = { taskId: string; success: boolean };

export type ScenarioCompletion = {
  /** Scenarios among the outcomes. */
  scenarios: number;
  /** Scenarios whose every task succeeded. */
  completed: number;
  /** completed / scenarios; 0 for no outcomes. */
  sgc: number;
};

/** SGC over one condition's outcomes (one per task; a repeated task must pass every time). */
export function scenarioGoalCompletion(outcomes: readonly ScenarioOutcome[]): ScenarioCompletion {
  const allPassed = new Map<string, boolean>();
  for (const o of outcomes) {
    const s = scenarioOf(o.taskId);
    allPassed.set(s, (allPassed.get(s) ?? true) && o.success);
  }
  const scenarios = allPassed.size;
  const completed = [...allPassed.values()].filter(Boolean).length;
  return { scenarios, completed, sgc: scenarios > 0 ? completed / scenarios : 0 };
}
