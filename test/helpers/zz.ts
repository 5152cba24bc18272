import { mulberry32 } from '../../src/bench/apptown/ids.js';
import { seededRandom } from '../../src/seeded-random.js';
const out: number[] = [];
for (const s of [0, 1, 42, 0x5eed_1d5, -7, 4294967295]) { const r = mulberry32(s); for (let i=0;i<5;i++) out.push(r()); }
const r2 = seededRandom('qa-corpus', 7); for (let i=0;i<5;i++) out.push(r2());
console.log(JSON.stringify(out));
