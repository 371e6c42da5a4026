import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { END, JsonlTransitionRecorder, MemoryRecorder, StateGraph, TransitionRecorder, type TraceRecorder, type WorkflowContext } from '../src/index.js';
import { median, pairedRatios } from './measure.js';
import { writeResultsSection } from './resultsSection.js';

/**
 * `npm run bench:transitions` (and part of `npm run bench`): what recording every step transition
 * costs a 10,000-step loop, as back-to-back pairs of the same loop without and with the recorder
 * (ratio with ÷ without per pair, median of the pairs). Also, for comparison, the same loop with a
 * MemoryRecorder (every event redacted and kept), and the JSONL transition recorder (batched
 * synchronous appends). Transition recorders take the light path (unstamped events, see
 * `HopListener`); the no-op onEvent listener shows what building the stamped events costs. Stored runs derive their transitions from the event log they already
 * write, so they pay nothing more.
 */
/** What the section says after the table: the history of these figures (kept here so a re-run writes it again). */
const HISTORY = `2026-12-08: why these ratios move so much, and JSONL as a long-running application sees it. This table forces a full GC before every run; with Node's default young generation the 10,000-step loop then runs in the state bench/youngGeneration.bench.ts describes (each scavenge promotes 1.2–1.4 MB, and V8 starts allocating some of the steps' objects straight in the old generation), which sets in differently from run to run: the main source of the ±5–15 % quartiles here. On the same recorders (the tree of f8b791b), \`npm run bench:steady\` (the build, \`--max-semi-space-size=64\`, no forced GC, one child process per variant, 41 pairs), three runs: budget 1.036 / 1.048 / 1.055, counting 1.050 / 1.037 / 1.024, kept 1.028 / 1.104 / 1.068 (that child's loop stays in the slow state, 128–148 ms a run), JSONL 1.091 / 1.098 / 1.091 (quartiles 1.061–1.131). Where JSONL's points are, in scratch variants of the build (one process, a full GC before each run, 31 pairs, load 1.5–2.3): counting 1.090; the tracker through the JSONL recorder with no fields kept 1.110; the fields kept but never sent 1.122; JSONL 1.200; in another run a no-op light-path listener 1.052 against counting 1.082; and a writer thread that takes each batch and writes nothing 1.142 against 1.185 for the real one (counting 1.045 and 1.091 in those two runs). The writer thread's work in the loop: 1.0 µs of its own time a line (1.5 µs of its CPU with the message handling) against 0.24 µs for the same batches handled alone, because with the default young generation the collector's helper threads already take most of the second core (the loop without a recorder uses 1.3–1.75 cores). Encoding whole lines from a per-edge cache made the encoding alone 1.85× faster (0.148 → 0.080 µs a line) and changed nothing measurable in the loop (before → after in one process, 41 pairs: JSONL 1.153 → 1.175, counting 1.041 → 1.090), so it was not kept; nor was one hand-over per run instead of batches of 256 (1.184 against 1.164). The writer thread (f6649a6, 2026-12-07 evening): the JSONL recorder's run thread now only keeps each transition's fields in typed arrays (\`TransitionBatch\`), and one writer thread per process encodes and appends them (\`TransitionWriterThread\`); a run's end, the timer and \`flush()\` wait until the lines are written. The table is the tree of f6649a6 with its tests (41 pairs, nothing else running, load 2.0–2.7): kept 1.112 and counting 1.083 there, against 1.055 and 1.055 on f7df96c below, with no change to them, so this machine's noise between runs is about ±5 points. Before and after in one process (\`bench/overheadBuilds.bench.ts before=<4e40ef7's dist/bundle/index.js> after=dist/bundle/index.js\`, SWITCHBOARD_BENCH_ONLY=counting,jsonl), wall (process CPU, the writer thread's included) with ÷ without: 31 pairs, load 2.4–2.9: JSONL 1.244 (1.289) → 1.162 (1.220), counting 1.114 → 1.079; 41 pairs, load 2.1–3.0: JSONL 1.183 (1.218) → 1.162 (1.216), counting 1.094 → 1.072. \`npm run bench:transitions\` on f6649a6, 41 pairs, two runs before the table's: JSONL 1.119 at load 2.6–3.0 and 1.182 (quartiles 1.071–1.267) at load 1.3–2.2, counting 1.062 and 1.076. So the thread takes 2 to 8 points off the run's wall time on this 2-core machine, not the 11 points JSONL sits over the counting recorder, and JSONL is still not under 1.10. What is left, measured in one process (scratch, 31 pairs): the fields kept in typed arrays without a thread cost about what the counting recorder costs (1.111 / 1.068 against 1.080 / 1.092); handing a batch over (postMessage with its two arrays moved) takes about 58 µs inside the loop, 40 times a run (1.2 % of it; 4 µs for a message without the arrays, 10 µs with arrays on shared memory: a pool of SharedArrayBuffer slots was tried and made no difference, so it was not kept); the rest is the writer thread's share of the second core, which the engine's own garbage collection helpers use too: with \`node --single-threaded-gc\` the same three gave counting 1.019, kept fields 1.033, JSONL 1.065. A batch of 1,024 or 4,096 lines instead of 256 made no difference (1.156–1.184 and 1.133–1.172 against 1.143–1.160). Before that the table was the tree of f7df96c (41 pairs, SWITCHBOARD_BENCH_PAIRS=41, 2026-12-07 14:56 UTC, nothing else running on the machine, load 1.7–3.4 from the benchmark's own two threads); a 21-pair run just before it (load 0.7–2.1) gave kept 1.094, kept and read 1.154, counting 1.055, no-op onEvent 1.163, JSONL 1.167 (quartiles 1.105–1.252), MemoryRecorder 1.732. So on a quiet machine the kept and counting recorders are under 1.10 at the median (1.055 both in the table; quartiles reach 1.136–1.170), kept and read is not, and JSONL is 1.16–1.17, about 11 points over the counting recorder on the same tracker, twice what its own calls take in a profile (below). Before that the table was the tree of abf12ef (below). 016cc28 (2026-12-07): the JSONL recorder encodes each line as its transition is made (the tracker hands the record's fields to a \`TransitionSink\`, \`TransitionLineEncoder.add\`; no record object is made or kept) and keeps the file open between full batches (closed at a run's end or wait, on \`flush()\` and at the latest \`flushMs\` after the last batch), so no open and close per 256 lines. Allocation over the loop without a recorder (\`--trace-gc-nvp\`, 23 runs): about 200 bytes a step before, 9 after; the bytes promoted out of the young generation were the same for the loop without a recorder, JSONL before and JSONL after (427, 427.5, 423 MB), so the 256 kept records were not being promoted in any amount that counts. In CPU profiles of 40 JSONL loops (\`node --cpu-prof\`, two profiles each, load 10–13), the time inside the recorder's calls fell from 6.96 / 7.66 % of all samples to 5.32 / 5.51 % (garbage collection 25–33 % of the samples either way): opening the file was 0.5 % and is gone. Where JSONL's own points now go, per step of this loop (about 20 µs of CPU a step at that load): the write's system call 1.7 % (about 0.35 µs; 40 writes of 45 KB a run), encoding 2.7 % (about 0.55 µs: copying the cached pieces 1.0 %, the line's fields 0.55 %, the time's text, made once per millisecond, 0.5 %), the tracker and the batching 0.6 % (about 0.12 µs): about 5.5 points on top of the engine's side of the light path (1.03–1.07, below). Encoding a kept batch at its write cost about 1.3 µs a record inside the loop (process CPU around each batch, load 8) against 0.25 µs for the same records alone; encoded as made, it is the 0.55 µs above. The table could not show the change: \`npm run bench:transitions\` on the tree of 016cc28's change (then on 4a66e4a), two runs of 41 pairs at load 8–19 (others' work on the 2 cores; quartiles ±30 %), gave kept 1.006 / 1.139, kept and read 1.303 / 1.123, counting 1.021 / 1.160, no-op onEvent 1.296 / 1.264, JSONL 1.172 (0.986–1.555) / 1.364 (1.017–1.598), MemoryRecorder 1.807 / 1.868; the builds side by side (\`bench/overheadBuilds.bench.ts\`, jsonl and counting, 31 pairs, load 15–17 and 7–10) gave JSONL CPU 1.247 → 1.283 and 1.223 → 1.274 (quartiles about 1.14–1.31 for both), counting 1.111 → 1.067 and 1.084 → 1.086, and scratch recorders doing the same work ranked against the real one differently in each of four runs. So the change is shown by allocation and profile, not by a ratio, and JSONL is not shown under 1.10: its own calls are about 5 points, of which taking the write off the run's thread could save at most the 1.7 and only encoding elsewhere (raw fields handed to another thread) the 2.7. The table is the tree of abf12ef (41 pairs, SWITCHBOARD_BENCH_PAIRS=41, 2026-12-07 morning, load 2.1–3.0), after 73765a0 (the JSONL recorder's lines encoded straight into one reused byte buffer: fed its transitions directly, outside the engine, the recorder costs 0.68–0.77× what it did, 552–603 → 356–457 ns a step, in four paired runs); a run just before it on the same tree (load 1.7–2.3) gave kept 1.103, kept and read 1.133, counting 1.067, no-op onEvent 1.176, JSONL 1.157 (quartiles 1.046–1.292), MemoryRecorder 1.515. JSONL is still above 1.10: inside the loop its batch writes take about 1–1.5 µs of CPU a step (a timer around flush, scratch, load 1.5–5), before and after alike within that noise, about half of it the append's system call, which costs 110–200 µs for a 44 KB batch inside the loop against 35 µs outside it (the kernel's path runs cold after 3 ms of engine work); only taking the append (and the encoding) off the run's thread could bring it under. Re-measured on a new machine on 2026-12-07 (41 pairs each): the tree of 7e541c4 at 07:23, quiet (load 1.7–2.4): kept 1.047, kept and read 1.113, counting 1.042, no-op onEvent 1.164, JSONL 1.167, MemoryRecorder 1.575; the tree of 1c8996d at 08:37 with other work beside it (load 2.9–5.9; no recorder change but one Map size check per record for forks): 1.048, 1.136, 1.003, 1.154, 1.219, 1.707. The append is not what keeps JSONL above the line: the same recorder appending to /dev/null gives 1.138, against 1.162 to a file and 1.071 for the counting recorder (scratch, 31 pairs each in one process, load 1.4–2.2), so an append moved to another thread would save 2 to 3 points of the 9; the rest is making the lines on the run's thread, which only a recorder that hands raw fields to another thread to encode could move. Before that the table was the tree of bc1b2ac (41 pairs, 2026-12-07, load 1.5–2.6; 14e012b changed the loop that hands stamped events to recorders, not the light path these recorders take): kept 1.073, kept and read 1.122, counting 1.087, no-op onEvent 1.140, JSONL 1.190 (quartiles 1.079–1.259), MemoryRecorder 1.616. Before that the table was the tree of df73c46 (41 pairs, SWITCHBOARD_BENCH_PAIRS=41, wall clock, 2026-12-06 late evening, load 2.1–2.9; no recorder code changed since 103c552, the recorders now only refuse bad options when made); a 21-pair run an hour before on 1d00f1a (load 1.6–2.2) gave kept 1.055, kept and read 1.091, counting 1.082, no-op onEvent 1.167, JSONL 1.133, MemoryRecorder 1.610. Before that the table was the tree of 103c552 (load 2.1–2.6); a run just before it on the same tree (load 1.6–2.1) gave kept 1.004, kept and read 1.097, counting 1.075, no-op onEvent 1.191, JSONL 1.111, MemoryRecorder 1.632 (the last two rows moved with the stamping change described at the end). Earlier that day the table was the tree of 977f6e3 (load 1.2–1.6; the paragraphs below have the history). An hour before that, on 4fbe936 (the same recorders) at load 1.2–2.2: kept 1.093, kept and read 1.078, counting 1.047, JSONL 1.211, no-op onEvent 1.567, MemoryRecorder 2.014. The table before these was the tree of 7d87371 at load 1.5–1.7: kept 1.086, kept and read 1.135, counting 1.081, JSONL 1.154, no-op onEvent 1.485, MemoryRecorder 2.035; the one before it was the tree of 7171041 at load 4.7–5.3: kept 1.128, kept and read 1.105, counting 1.092, JSONL 1.145, MemoryRecorder 1.955; before that b0d57ce: kept 1.160, counting 1.090, no-op onEvent 1.461, JSONL 1.140, MemoryRecorder 1.848 at load 3.6–4.7; and 125c141 before that: kept 1.175, counting 0.944, no-op onEvent 1.349, JSONL 1.213, MemoryRecorder 1.878 at load 4.0–5.3).

The tree before the light path (965f32a) and after it (18e08e8, 5ea064a; the run also carried the
budget change described under Budgets, which no run without a budget reaches), one after the other
(21 pairs each, loads 20–28 on the 2 shared cores, so wide quartiles):

| recorder | before | after |
| --- | ---: | ---: |
| TransitionRecorder (records kept) | 1.758× (load 22.8) | 1.064× (load 21.7) |
| TransitionRecorder counting | 1.710× (load 20.8) | 1.067× (load 28.0) |
| no-op onEvent listener (stamped events) | 1.676× (load 22.4) | 1.401× (load 26.3) |
| JsonlTransitionRecorder | 2.323× (load 23.6, an append per line) | 1.098× (load 20.1, batched) |
| MemoryRecorder | 2.222× (load 21.4) | 1.755× (load 21.8) |

Both transition recorders are under the 1.10 goal at the median, but the quartiles (about
0.87–1.26) straddle it at this load. CPU time (process.cpuUsage, 21 pairs, load 21) of the same loop
during the work: a hop listener that does nothing 1.10–1.15×, the counting TransitionRecorder
1.24–1.31× — the process-CPU figure charges the extra garbage collection to the recorder, which the
wall-clock ratio under load hides. What is left there: three unstamped event objects and two clock
readings per step (Date.now() costs 120–370 ns on this machine), and the tracker's record.
Re-measured on a quiet machine (c41ec0e's tree, load 1.6–2.0, 21 pairs, \`npm run bench:transitions\`):
TransitionRecorder 1.113 (quartiles 1.033–1.232), counting only 1.083 (1.047–1.131),
JsonlTransitionRecorder 1.241 (1.175–1.400), no-op onEvent 1.438, MemoryRecorder 1.821 — so the
recorders are near but not reliably under 1.10; the loaded-machine medians above flattered them.
After the i14-overhead changes (f2af341 and c58db56; 2 cores, Node v20.20.2, load 1.8–2.7,
other agents' work beside it): a recorded loop reads the clock only for its first node and its end (a node's completion
carries the reading that ended the node, an edge is timed by it, the next step starts then; before, two more readings
per step), a run whose recorders are all on the light path refills one object per kind of step event instead of
allocating three per step, edge labels are made once per index, and the JSONL recorder keeps raw records and encodes
them when it writes (TransitionLineEncoder, byte-equal to JSON.stringify, repeated strings quoted once).
\`npm run bench:transitions\` (21 pairs, load 2.2–2.5): TransitionRecorder 1.110 (quartiles 1.094–1.132), counting
1.110 (1.085–1.170), JsonlTransitionRecorder 1.179 (1.121–1.216), no-op onEvent 1.407, MemoryRecorder 1.877.
Wall and process CPU side by side (\`bench/overheadCpu.bench.ts\`, 21 pairs, load 2.4–2.7): kept wall 1.104 / CPU 1.139,
counting 1.114 / 1.132, JSONL 1.180 / 1.165; a run before it (31 pairs, load 1.8–2.6): kept 1.089 / 1.139, counting
1.091 / 1.102, JSONL 1.186 / 1.191. The loop itself got faster meanwhile (bench/budget's graph loop: 12.4 µs per step
without, was 17.5), so the same absolute cost is a larger share. Recording is at the 1.10 line, not reliably under it;
JSONL is about 7 points above the counting recorder (encoding about 0.7 µs per record, and 40 appends of 45 KB per
10,000-step run). Measured (CPU, load 13–30, scratch variants of the tracker): the engine's side of the light path
(events built and handed to a listener that does nothing) is about 1.08 of the loop, the tracker about 0.05–0.07 more,
of which the two clock readings per step were about 0.03 (Date.now() under load); in isolation the tracker costs about
0.14 µs per step, so most of what remains is extra allocation charged to the loop's garbage collection.
This round (a259170, 3315b13, 125c141): a recorded step hands its transition recorders two light-path events instead of
three (the \`node.started\` right after the edge to its node is left out when every light-path listener says
\`startsFromEdges\`; the tracker starts the step at the edge), the kept records are held in columns (\`TransitionColumns\`:
run fields shared, strings by reference, numbers in one array) and built as objects when \`records\` is read (since
6b030f1 also when a run ends, so an array taken before a run holds it afterwards, as before), and the JSONL
encoder makes a run's line head once and reuses the last time's text (0.4–0.6 µs per record encoded, was 0.5–1.0).
Before and after in one process, pair after pair in rotated order (\`npx tsx bench/overheadBuilds.bench.ts
before=<97488a9's dist/bundle/index.js> after=dist/bundle/index.js\`, 41 pairs each, load 3.5–4.9), CPU (wall) with ÷
without: TransitionRecorder kept 1.167 (1.210) → 1.176 (1.168), quartiles 1.125–1.217; counting 1.142 (1.148) → 1.132
(1.130), quartiles 1.110–1.156; JSONL 1.211 (1.211) → 1.206 (1.210), quartiles 1.167–1.267. The same at 21 pairs
(load 1.5–3.0): kept 1.163 → 1.162, counting 1.147 → 1.101, JSONL 1.219 → 1.235. \`bench/overheadCpu.bench.ts\`
(31 pairs, load 6–8): kept wall 1.091 / CPU 1.168, counting 1.112 / 1.110, JSONL 1.218 / 1.212 (all on the tree of
125c141, before 6b030f1; its own figures: kept CPU 1.220 / 1.228 against 1.176 / 1.185 there). So recording is still
not under the 1.10 goal, and this round's changes did not move it beyond the noise. What is known about the rest: fed a
step's events directly, the tracker takes 60–120 ns per step; a counting TransitionRecorder costs the loop about 2.4 µs of
CPU per step (19 µs without); a light-path listener that does nothing costs 0.1–1.3 µs per step in repeated in-process
runs (that spread is this machine's noise), and about 1 µs even with the three step events not emitted at all, which
points at the run's other listening-only work or at noise, not at the tracker. CPU profiles (\`--cpu-prof\`) of the loop
with and without a recorder spread the difference over XState's own functions and the garbage collector (a third of the
loop's time); the recorder's own functions are 1–3 % of it. JSONL adds encoding and one appendFileSync of about 45 KB per
256 lines (3–4 % of its profile together). Not tried: keeping the JSONL file open across a run's batches.
Where a light-path listener's cost sits (scratch builds of the tree of 7f47b5a, each branch of the engine that runs only
while someone listens switched off in turn; a listener that does nothing, CPU per step against the bare loop in one
process, 20–30 rounds, load 0.9–1.4): all four branches (enterNode's node.started, the node's reporter, settleStep's
node.completed, reportHop's edge) on 1.076–1.091, all off 0.996–1.000 (what remains is the run's start and end), only
the three step events' \`emit\` cut short 1.055, reportHop's branch off 1.060, enterNode's 1.070, the reporter's 1.081. So
about 0.6 µs per step is the emit itself and about 1 µs the calls around it (refilling the reused events, a route
lookup, a map lookup) — far more than their own instructions; a larger inlining budget
(\`--max-inlined-bytecode-size-cumulative=3000\`) made every variant slower, so it is not inlining running out.
One call per step (b0d57ce): a recorded step no longer reaches the transition recorders as events. \`HopListener.step\`
takes a step's \`node.completed\` and the \`edge.traversed\` to another node as arguments in one call (run id, path, node,
the reading that ended the node, duration, result, target, edge kind, index, route key), so the engine fills no event
object, builds no time object and goes through the sink once per step instead of twice; \`enterNode\` no longer builds
the \`node.started\` the light path would drop (\`RunRuntime.skipsStart\`). It is taken when nobody takes stamped events
and every light-path listener has \`step\` (TransitionTracker, JsonlTransitionRecorder); an edge to the end, unmatched
route answers, failures, budgets, resumes and coordinator steps still go to \`hop\` as before, and records are built as
before, every record as the step happens (no batching: \`onTransition\`, \`records\` read mid-run and JSONL output are
unchanged; test/analytics/hopSteps, lightPath). Before (main's bundle at 48edaa6, copied aside) and after in one process
(\`bench/overheadBuilds.bench.ts\`, CPU (wall) with ÷ without): 41 pairs, load 2.5–3.3: kept 1.233 (1.179) → **1.123**
(1.114), quartiles 1.054–1.227; counting 1.150 (1.122) → **1.067** (1.068), 1.018–1.129; JSONL 1.250 (1.223) →
**1.215** (1.220), 1.124–1.304. 31 pairs, load 4.2–5.3: kept 1.238 → 1.143, counting 1.156 → 1.057, JSONL 1.265 →
1.200. 21 pairs, load 4.1–5.0: kept 1.198 → 1.088, counting 1.209 → 1.112, JSONL 1.303 → 1.129. On the tree after it,
\`bench/overheadCpu.bench.ts\` (31 pairs, load 4.1–4.5): kept wall 1.134 / CPU 1.164, counting 1.067 / 1.096, JSONL
1.128 / 1.145; the table above (\`npm run bench:transitions\`, 21 pairs, load 3.6–4.7): kept 1.160, counting 1.090. In
one process, rotated, 21 rounds at load 3.3–4.1 (scratch variants): a listener with \`step\` that does nothing 1.050 of
the bare loop, the same listener without \`step\` (two \`hop\` calls per step) 1.128. So the counting recorder is now
under the 1.10 goal in most runs (1.057–1.112 over five runs), the kept recorder is not (1.088–1.164), and JSONL
is about 1.13–1.22. What is left, measured the same way (rounds of 31–41, load 3.5–5.8, where a variant moves ±4
points between runs): the engine's side with a \`step\` listener that does nothing is 1.03–1.07 of the loop, and
switching off its three remaining listening branches (enterNode's check, the node's reporter lookup, the \`step\` call)
one at a time moved it within that noise, the first two together to 1.02 and all three to 1.01 (single runs, not
confirmed); the tracker with columns that keep nothing, only
the numbers, only the strings, or all of them measured 1.083–1.090 in one run (1.146 for all of them in another), so
keeping the records is not where the kept recorder's 4–7 points over the counting one clearly sit; its garbage
collection per run was 5–10 % above the counting recorder's (13 scavenges per run either way, \`PerformanceObserver\`
gc entries). Batching records (delivering them every N steps) was not built: with the engine's call now one per step
and the tracker's own work 60–120 ns per step, it could save little, and it would delay \`onTransition\`.
Records built when read (7171041). Since 6b030f1 the end of every run built its records as objects (10,001 here), so
that an array taken before the run held them afterwards; that costs about 0.5 ms alone but about 4 ms inside the run's
heap (the scavenges copy the fresh records), and a run of this bench on 4ac325c at load about 1 gave kept 1.121
(quartiles 1.070–1.172), counting 1.032, JSONL 1.054. \`records\` is now a real array behind a Proxy (\`liveRecords\`) that
appends the records kept in columns since last time before anything reads, writes or enumerates it: the same array is
up to date whenever it is looked at (in the middle of a run too, which 6b030f1's was not), and a run nobody reads builds
no record object. Reading \`length\` builds none; iterating goes through a generator over the array (the array iterator
through the proxy was about 25× slower per record); \`structuredClone\` of the array itself throws (a copy,
\`records.slice()\`, is a plain array). Before and after in one process (\`bench/overheadBuilds.bench.ts\`, 4ac325c's
bundle against 7171041's, 31 pairs, CPU (wall) with ÷ without): load 4.0–5.1: kept 1.196 (1.210) → 1.120 (1.101);
counting, the same code in both builds, 1.161 (1.118) and 1.119 (1.073), which is the noise; kept with every record then
read (\`keptRead\`) 1.175 (1.203) → 1.162 (1.148). Load 3.4–7.5: kept 1.193 → 1.102, keptRead 1.194 → 1.171, counting
1.127 and 1.084. So a kept recorder nobody reads now costs what the counting one does; whoever reads its records pays
for building them (the table's "every record then read" row: 10,001 objects and one pass over them). Whether the kept
recorder is now reliably under 1.10 is not settled on this machine: the first run of this bench on 7171041 (load 3.7–5.8,
others' work beside it) gave kept 1.150 (quartiles 1.030–1.223), kept and read 1.182, counting 1.046, JSONL 1.161, no-op
onEvent 1.450, MemoryRecorder 1.899; in one process, rotated, 21 rounds at load 5.4 (scratch variants, CPU / wall):
counting 1.084 / 1.054, kept 1.131 / 1.059, a tracker writing to bare columns with no recorder around it 1.113 / 1.107.
So kept sits 0–7 points above counting at this load. Scratch columns behind the same tracker, in one process, rotated,
21–25 rounds at load 2.7–3.9 (CPU): columns that keep nothing 1.055 and 1.076 (with counting at 1.087 beside it), only
the four numbers in a growing Float64Array 1.106, strings interned into an Int32Array as well 1.112–1.117 (1.101
preallocated, no growth), today's columns 1.113–1.114. So interning the strings off the scavenged heap does not help;
the points between counting and kept come with keeping anything per step at all, and are at the size of this machine's
noise (counting alone moved 1.046–1.092 between two runs of the table). On a quieter machine (2026-12-05, evening, nobody else's work beside it) \`npm run bench:transitions\` gave, on 4ac325c at
load 0.4–1.5: kept 1.121 (quartiles 1.070–1.172), counting 1.032, JSONL 1.054; on 7d87371 (7171041's records built
when read; the later durable changes do not touch a recorded run) at load 1.6–2.2: kept 1.110 (1.084–1.146), kept and
read 1.120, counting 1.058, JSONL 1.155; and again at load 1.5–1.7 (the table): kept 1.086, kept and read 1.135,
counting 1.081, JSONL 1.154. So at load 1–2 one tree still moves 3–10 points between runs (JSONL 1.054 → 1.155 on
unchanged JSONL code), kept is within a few points of counting, and none of the three is reliably under 1.10.
2026-12-06: the kept recorder and the counting one were under 1.10 in both runs of the day (kept 1.093 and 1.014,
counting 1.047 and 1.055), JSONL was not (1.211, 1.199). What JSONL pays beyond the tracker, measured with scratch
recorders over the same tracker in one process (41 rounds rotated, CPU per step, load 1.5): records dropped 1.035,
encoded and dropped 1.034, encoded and appended per batch (today's) 1.088, the file kept open and written with one
writeSync per batch 1.118, counting 1.044, the real JsonlTransitionRecorder 1.085 — all inside this machine's noise
(in that run the loop without a recorder took 25.8 µs CPU per step and with the counting one 21.4, the pairs
disagreeing by more than the effects), so keeping the file open is not shown to help and was not built. A frozen
\`records\` array (Object.freeze, an immutable store's auto-freeze) no longer breaks the recorder's later runs: it keeps
what it held, and the next read of \`records\` gives a new live array (4fbe936). Later on
2026-12-06, on f60e378 (no recorder code changed since 4fbe936): this benchmark at 21 pairs (load
0.8–2.0) gave kept 1.130, kept and read 1.247, counting 1.055, JSONL 1.070, no-op onEvent 1.538,
MemoryRecorder 2.063; at 81 pairs (SWITCHBOARD_BENCH_PAIRS=81, load 2.1–4.1, tests running beside
it) kept 1.099 (quartiles 0.996–1.190), kept and read 1.135, counting 1.108, JSONL 1.144
(1.024–1.316), no-op onEvent 1.495, MemoryRecorder 2.195. So JSONL sits about 3–4 points above
counting, and the quartiles of one pair span about ±12 %. Where JSONL's points go, from a CPU
profile of 40 loops of 10,000 steps with a JSONL recorder (node --cpu-prof): its own functions are
3.3 % of the process's CPU time — the write (writeFileUtf8: flattening each batch's string and
encoding it as UTF-8) 1.24 %, building each line 0.86 %, the tracker's hand-over and the batch 0.6 %,
quoting and numbers 0.2 %, appendFileSync 0.07 %; garbage collection was 14.6 % of the whole.
Encoding 10,000 records alone takes 3.4 ms and flattening, encoding and appending them 4.7 ms more
(scratch, 50 rotated rounds); joining the lines of a batch from an array (8.45 ms), a latin1 Buffer
(11.3 ms), and writing each line into a preallocated Buffer (utf8Write 13.2 ms, latin1Write 12.0
ms) were all slower than today's string (8.1–8.6 ms), so nothing was changed: about 0.8 µs a line
is what a line of JSON costs here, 3–4 % of this loop's 20–25 µs step.
Stamped events without a spread (0eb90cf, 5cff6b9; 2026-12-06 evening, a new machine): on Node 20
an object begun with a spread takes every key added after it on a slow path (\`npx tsx
bench/objectCopy.bench.ts\`, load about 2: \`{ ...event, <8 envelope keys> }\` 10–12 µs, \`{ ...event,
seq }\` 0.7–0.9 µs, \`Object.assign({}, event, envelope)\` 0.3–0.35 µs), and every stamped event was
built that way, as were a node's events (+ its id) and an agent's (+ its name, every
\`model.delta\`). They are now built by \`withFields\` (\`Object.assign\` onto a new object; an own
\`__proto__\` key copied with defineProperty, as the spread keeps it). The transition recorders never
took stamped events, so their rows do not move; the two comparison rows do. Builds of 2dd22d5 and
103c552 side by side (\`SWITCHBOARD_BENCH_ONLY=onEvent,memoryRecorder npx tsx bench/overheadBuilds.bench.ts
before=… after=…\`, 21 pairs, load 1.6–1.9), CPU (wall) with ÷ without: a no-op onEvent 1.338 (1.464)
→ 1.152 (1.206), a MemoryRecorder 1.777 (1.916) → 1.547 (1.600); a streamed 200-token answer to its
end (\`npx tsx bench/firstTokenBuilds.bench.ts\`, 61 rounds, load 1.9) 4.82 → 4.34 ms in memory,
6.07 → 5.67 ms stored in SQLite, the first token unchanged. Two builds in one process share V8's
object shapes (one build's spread-made objects slowed the other's in bench/spreadBuilds.bench.ts,
which runs a process per sample), so these figures may understate the change.
Tried on 2026-12-06 late evening for JSONL and not kept: the file kept open between a run's batches
(one open and close per run instead of per batch) and lines encoded as each record is made, field
by field, with no record object (a \`TransitionSink\` the tracker hands fields to). Builds side by
side (\`SWITCHBOARD_BENCH_ONLY=jsonl,counting SWITCHBOARD_BENCH_PAIRS=31 npx tsx
bench/overheadBuilds.bench.ts\`, load 1.6–3.0), JSONL CPU (wall) with ÷ without: before 1.180 (1.146),
file kept open 1.179 (1.201), both 1.209 (1.178): no change above noise, so neither was kept. Driven
alone through its light path (10,000 \`step\` calls, no engine), the JSONL recorder costs about 0.5 µs
a transition against 0.02–0.03 µs for a counting tracker, the same for all three builds; inside the
engine's loop its functions take about 0.9 µs a step in a CPU profile (building the line 0.28, the
write 0.4–0.5, of which opening and closing the file 0.1–0.2). Measured beside it in one process
(scratch, 31–41 pairs, two runs): with a forced GC before each run, as this table, JSONL ÷ none was
1.142–1.220 and JSONL ÷ counting 1.062–1.106 (wall and CPU); in batches of three to five runs back to
back without one (CPU), JSONL ÷ none 1.061 and 1.152, JSONL ÷ counting 1.095. So JSONL's extra over the counting recorder is real (about 10 %), not an effect of the method,
and comes from making and writing about 150 bytes of JSON a transition.`;

const PAIRS = Number(process.env['SWITCHBOARD_BENCH_PAIRS'] ?? 21);
const STEPS = 10_000;

function increment(ctx: WorkflowContext): null {
  ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
  return null;
}
const done = (ctx: WorkflowContext) => (ctx.get<number>('count') ?? 0) >= STEPS;
const graph = new StateGraph({ name: 'loop', maxSteps: STEPS })
  .addNode('a', increment)
  .addNode('b', increment)
  .start('a')
  .addConditionalEdges('a', (ctx) => (done(ctx) ? END : 'b'))
  .addConditionalEdges('b', (ctx) => (done(ctx) ? END : 'a'));

async function loop(recorders: readonly TraceRecorder[] = [], expected = 0, readAll = false): Promise<void> {
  const run = await graph.run('go', { recorders });
  if (run.status !== 'completed' || run.steps !== STEPS) throw new Error(`loop ended ${run.status} after ${run.steps} steps`);
  for (const recorder of recorders) {
    let got = recorder instanceof TransitionRecorder ? recorder.records.length : expected;
    if (readAll && recorder instanceof TransitionRecorder) {
      got = 0;
      for (const record of recorder.records) if (record.from !== '') got++;
    }
    if (got !== expected) throw new Error(`the recorder kept ${got} transitions, expected ${expected}`);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'sb-bench-transitions-'));
const variants: { name: string; recorders: () => TraceRecorder[] }[] = [
  { name: 'TransitionRecorder (records kept in memory)', recorders: () => [new TransitionRecorder()] },
  { name: 'TransitionRecorder (records kept, every record then read)', recorders: () => [new TransitionRecorder()] },
  { name: 'TransitionRecorder counting (onTransition, nothing kept)', recorders: () => [new TransitionRecorder({ onTransition: () => undefined })] },
  { name: 'for comparison: a no-op onEvent listener (the engine builds its events, nobody keeps them)', recorders: () => [] },
  { name: 'JsonlTransitionRecorder (batched appends)', recorders: () => [new JsonlTransitionRecorder(join(dir, `t-${Math.random()}.jsonl`))] },
  { name: 'for comparison: MemoryRecorder (every event redacted and kept)', recorders: () => [new MemoryRecorder()] },
];

try {
  for (let i = 0; i < 3; i++) {
    await loop();
    for (const v of variants) await graph.run('go', { recorders: v.recorders(), onEvent: () => undefined });
  }
  const rows: string[] = [];
  const loadBefore = loadavg()[0] ?? 0;
  for (const v of variants) {
    const load = loadavg()[0] ?? 0;
    const ratios = await pairedRatios(
      () => loop(),
      () =>
        v.name.includes('no-op onEvent')
          ? graph.run('go', { onEvent: () => undefined })
          : v.recorders()[0] instanceof TransitionRecorder && !v.name.includes('counting')
            ? loop(v.recorders(), STEPS + 1, v.name.includes('every record'))
            : graph.run('go', { recorders: v.recorders() }),
      PAIRS,
    );
    const sorted = [...ratios].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!.toFixed(3);
    const row = `| ${v.name} | **${median(ratios).toFixed(3)}×** | ${q(0.25)}–${q(0.75)} | ${load.toFixed(1)} |`;
    rows.push(row);
    process.stdout.write(`${v.name}: with ÷ without ${median(ratios).toFixed(3)} (quartiles ${q(0.25)}–${q(0.75)}; ${PAIRS} pairs of a ${STEPS}-step loop; load ${load.toFixed(1)})\n`);
  }
  writeResultsSection(
    'transitions',
    `## Transition recording (bench/transitions.bench.ts)

Run: \`npm run bench:transitions\` (part of \`npm run bench\`). A 2-node loop of ${STEPS.toLocaleString('en')} steps
(\`ctx.put\` / \`ctx.get\` node bodies, a router per node), run without a recorder and with one,
back to back in ${PAIRS} pairs (alternating order); the ratio with ÷ without of each pair, median and
quartiles. Goal: under 1.10× for transition recording. 2 cores, Node ${process.version}, load average
${loadBefore.toFixed(1)} at the start (per row below, at the row's start).

| recorder | with ÷ without (median) | quartiles | load |
| --- | --- | --- | --- |
${rows.join('\n')}

Without any recorder a run builds no events at all (nothing listens), so the default costs nothing.
Transition recorders take the light path (\`TraceRecorder.hops\`): the engine hands them its events
unstamped (no envelope, sequence number, span ids, copy or redaction) and reads the clock only for
the events that end a step; the JSONL recorder hands its lines to a writer thread in batches (256 lines, a run's end, 1 s).
Stored runs derive their transitions from the event log they already write (\`storedTransitions\`),
so they add no write per step. ${HISTORY}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
