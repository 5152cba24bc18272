import { createApptown } from '../../src/bench/apptown/index.js';
const b = createApptown({});
const tasks = await b.listTasks();
const count: Record<string, number> = {};
for (const t of tasks) {
  const plan = await b.referencePlan(t.id);
  for (const s of plan.steps) for (const n of s.needs) {
    const k = `${n.select?.kind ?? 'read'}:${n.in}`;
    count[k] = (count[k] ?? 0) + 1;
    if (n.select?.kind === 'match' && n.in === 'observation' && Math.random() < 0.2) console.log(t.id, JSON.stringify(n.select));
  }
}
console.log(count);
