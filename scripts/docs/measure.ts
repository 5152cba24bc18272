import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeRecord, type MeasuredRecord } from './measured-record.js';
import { MEASUREMENTS, type Measurement } from './measurements.js';
import { commitState, cpuCount, load } from './provenance.js';

/** Runs one measurement in a fresh temporary folder and returns its record (not written). */
export async function measure(m: Measurement): Promise<MeasuredRecord> {
  const dir = mkdtempSync(join(tmpdir(), `acon-measure-${m.name}-`));
  const { commit, dirty } = commitState();
  const date = new Date().toISOString();
  const loadBefore = load();
  const started = process.hrtime.bigint();
  try {
    const { commands, output } = await m.run(dir);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      name: m.name,
      commands,
      commit,
      dirty,
      date,
      loadBefore,
      loadAfter: load(),
      cpus: cpuCount(),
      seconds: Math.round(seconds * 10) / 10,
      output,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `--measure NAME[,NAME…]|all`: measures each in turn, writes its record as soon as it is done
 * (an interrupted `all` keeps what it finished) and prints how long each took.
 */
export async function measureNamed(names: string): Promise<void> {
  const wanted = names === 'all' ? MEASUREMENTS : names.split(',').map((n) => byName(n.trim()));
  const started = Date.now();
  for (const m of wanted) {
    console.log(`measuring ${m.name} (${m.about}), load ${load()}`);
    const record = await measure(m);
    writeRecord(record);
    console.log(
      `  ${m.name}: ${record.seconds.toFixed(1)} s wall, load ${record.loadBefore} → ${record.loadAfter}; wrote docs/measured/${m.name}.json`,
    );
  }
  console.log(`measured ${wanted.length} in ${((Date.now() - started) / 1000).toFixed(0)} s wall`);
}

function byName(name: string): Measurement {
  const m = MEASUREMENTS.find((x) => x.name === name);
  if (!m) {
    const known = MEASUREMENTS.map((x) => x.name).join(', ');
    throw new Error(`no measurement ${name}; use all or one of: ${known}`);
  }
  return m;
}
