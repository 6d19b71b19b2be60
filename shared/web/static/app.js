// The ARC page: solve a task by hand, or browse a run folder of `python -m shared solve`.
// Plain DOM, no framework. Data comes from a file the user picks or drops, from the server
// (run/results.jsonl, run/summary.json) or from window.ARC_RUN / window.ARC_TASK, which
// page_html embeds for notebooks.
"use strict";

const MAX_SIDE = 30;
const STATUS_LABELS = { solved: "solved", unsolved: "unsolved", timeout: "timed out", error: "error", unscored: "unscored" };
const $ = (id) => document.getElementById(id);

const state = {
  // solve view
  task: null, taskId: "", expected: [], testIndex: 0, output: null, attempts: [],
  colour: 1, tool: "edit", selection: null, clipboard: null, dragging: false,
  // run view
  run: null, currentId: null,
};

// ---------------------------------------------------------------- grids

function makeGrid(rows, cols, colour = 0) {
  return Array.from({ length: rows }, () => new Array(cols).fill(colour));
}

function copyGrid(grid) {
  return grid.map((row) => row.slice());
}

function sameGrid(a, b) {
  return a.length === b.length && a.every((row, r) => row.length === b[r].length && row.every((v, c) => v === b[r][c]));
}

function sizeText(grid) {
  return `${grid.length}x${grid[0].length}`;
}

// Why a value is not an ARC grid, or "" when it is one.
function gridProblem(grid) {
  if (!Array.isArray(grid) || grid.length < 1 || grid.length > MAX_SIDE) return "expected 1-30 rows";
  const width = Array.isArray(grid[0]) ? grid[0].length : -1;
  if (width < 1 || width > MAX_SIDE) return "expected 1-30 columns";
  for (const [r, row] of grid.entries()) {
    if (!Array.isArray(row) || row.length !== width) return `row ${r} has another width than row 0`;
    if (!row.every((v) => Number.isInteger(v) && v >= 0 && v <= 9)) return `row ${r} holds a colour outside 0-9`;
  }
  return "";
}

// Pixel size of a cell so the grid fits in about `box` pixels.
function cellSize(grid, box) {
  return Math.max(5, Math.min(32, Math.floor(box / Math.max(grid.length, grid[0].length))));
}

// A grid as DOM cells (div.cell.cN with data-r, data-c); `wrong` marks cells (a 2-d bool mask).
function renderGrid(grid, { name = "", box = 160, wrong = null } = {}) {
  const node = document.createElement("div");
  const size = cellSize(grid, box);
  node.className = "grid";
  if (name) node.dataset.grid = name;
  node.dataset.size = sizeText(grid);
  node.style.gridTemplateColumns = `repeat(${grid[0].length}, ${size}px)`;
  node.style.gridAutoRows = `${size}px`;
  grid.forEach((row, r) => row.forEach((v, c) => {
    const cell = document.createElement("div");
    cell.className = `cell c${v}` + (wrong && wrong[r][c] ? " wrong" : "");
    cell.dataset.r = r;
    cell.dataset.c = c;
    node.appendChild(cell);
  }));
  return node;
}

// A grid with a caption under it.
function figure(grid, caption, options = {}, captionClass = "") {
  const fig = document.createElement("div");
  fig.className = "figure";
  fig.appendChild(renderGrid(grid, options));
  const cap = document.createElement("span");
  cap.className = `caption ${captionClass}`.trim();
  cap.textContent = caption;
  fig.appendChild(cap);
  return fig;
}

function renderPairs(pairs, box = 140) {
  const holder = document.createElement("div");
  holder.className = "pairs";
  pairs.forEach((pair, i) => {
    const node = el("div", "", "pair");
    node.appendChild(figure(pair.input, `demo ${i + 1} input ${sizeText(pair.input)}`, { box }));
    const arrow = document.createElement("span");
    arrow.className = "arrow";
    arrow.textContent = "→";
    node.appendChild(arrow);
    node.appendChild(figure(pair.output, `output ${sizeText(pair.output)}`, { box }));
    holder.appendChild(node);
  });
  return holder;
}

function say(text, isError = false) {
  const line = $("message");
  line.textContent = text;
  line.classList.toggle("error", isError);
}

function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// ---------------------------------------------------------------- views

function showView(name) {
  $("view-solve").hidden = name !== "solve";
  $("view-run").hidden = name !== "run";
  $("tab-solve").classList.toggle("active", name === "solve");
  $("tab-run").classList.toggle("active", name === "run");
}

// ---------------------------------------------------------------- solve by hand

// Check a task's shape; returns a message naming the first problem, or "".
function taskProblem(task) {
  if (!task || !Array.isArray(task.train) || !Array.isArray(task.test)) return 'expected an object with "train" and "test" lists';
  if (!task.test.length) return '"test" is empty';
  for (const [split, pairs] of [["train", task.train], ["test", task.test]]) {
    for (const [i, pair] of pairs.entries()) {
      const keys = split === "train" ? ["input", "output"] : ["input"];
      if (split === "test" && pair.output != null) keys.push("output");
      for (const key of keys) {
        const problem = gridProblem(pair[key]);
        if (problem) return `${split} pair ${i} ${key}: ${problem}`;
      }
    }
  }
  return "";
}

// Load a task into the solve view; `expected` lists the known test outputs (null: unknown).
function loadTask(task, id, expected = null) {
  const problem = taskProblem(task);
  if (problem) {
    say(`${id}: ${problem}`, true);
    return false;
  }
  state.task = task;
  state.taskId = id;
  state.expected = task.test.map((pair, i) => (expected && expected[i]) || pair.output || null);
  state.attempts = task.test.map(() => 0);
  $("task-name").textContent = id;
  $("solve-empty").hidden = true;
  $("solve-body").hidden = false;
  const demos = $("demos");
  demos.replaceChildren(...renderPairs(task.train).childNodes);
  showTest(0);
  say(`loaded task ${id}`);
  return true;
}

function showTest(index) {
  state.testIndex = index;
  state.selection = null;
  const n = state.task.test.length;
  $("test-index").textContent = `${index + 1} of ${n}`;
  $("next-test").disabled = index + 1 >= n;
  setOutput(makeGrid(3, 3));
  setVerdict("", "");
}

function testInput() {
  return state.task.test[state.testIndex].input;
}

function setOutput(grid) {
  state.output = grid;
  if (state.selection && state.selection.grid === "output") state.selection = null;
  $("size").value = sizeText(grid);
  renderWorkbench();
}

function renderWorkbench() {
  $("test-input").replaceChildren(renderGrid(testInput(), { name: "input", box: 360 }));
  const editor = renderGrid(state.output, { name: "output", box: 360 });
  editor.classList.add("editable");
  $("output-editor").replaceChildren(editor);
  paintSelection();
}

function setVerdict(text, cls) {
  const verdict = $("verdict");
  verdict.textContent = text;
  verdict.className = cls;
  const n = state.attempts[state.testIndex] || 0;
  $("attempts").textContent = n ? `attempts: ${n}` : "";
}

function selectionBounds(sel) {
  return {
    top: Math.min(sel.r0, sel.r1), bottom: Math.max(sel.r0, sel.r1),
    left: Math.min(sel.c0, sel.c1), right: Math.max(sel.c0, sel.c1),
  };
}

// Mark the selected cells; the selection lives on the input or the output grid.
function paintSelection() {
  document.querySelectorAll(".cell.selected").forEach((cell) => cell.classList.remove("selected"));
  const sel = state.selection;
  if (!sel) return;
  const b = selectionBounds(sel);
  const holder = sel.grid === "input" ? $("test-input") : $("output-editor");
  holder.querySelectorAll(".cell").forEach((cell) => {
    const r = Number(cell.dataset.r);
    const c = Number(cell.dataset.c);
    if (r >= b.top && r <= b.bottom && c >= b.left && c <= b.right) cell.classList.add("selected");
  });
}

// Replace every cell 4-connected to (r, c) that has its colour.
function floodFill(grid, r, c, colour) {
  const from = grid[r][c];
  if (from === colour) return;
  const stack = [[r, c]];
  while (stack.length) {
    const [y, x] = stack.pop();
    if (y < 0 || x < 0 || y >= grid.length || x >= grid[0].length || grid[y][x] !== from) continue;
    grid[y][x] = colour;
    stack.push([y + 1, x], [y - 1, x], [y, x + 1], [y, x - 1]);
  }
}

function setCellColour(r, c) {
  if (state.output[r][c] === state.colour) return;
  state.output[r][c] = state.colour;
  const cell = $("output-editor").querySelector(`.cell[data-r="${r}"][data-c="${c}"]`);
  cell.className = `cell c${state.colour}`;
}

function cellTarget(event) {
  const cell = event.target.closest(".cell");
  const grid = cell && cell.closest(".grid[data-grid]");
  if (!grid || !["input", "output"].includes(grid.dataset.grid)) return null;
  return { grid: grid.dataset.grid, r: Number(cell.dataset.r), c: Number(cell.dataset.c) };
}

function onGridMouseDown(event) {
  const at = cellTarget(event);
  if (!at || event.button !== 0) return;
  event.preventDefault();
  if (state.tool === "select") {
    state.selection = { grid: at.grid, r0: at.r, c0: at.c, r1: at.r, c1: at.c };
    state.dragging = true;
    paintSelection();
  } else if (at.grid === "output" && state.tool === "edit") {
    state.dragging = true;
    setCellColour(at.r, at.c);
  } else if (at.grid === "output" && state.tool === "flood") {
    floodFill(state.output, at.r, at.c, state.colour);
    renderWorkbench();
  }
}

function onGridMouseOver(event) {
  if (!state.dragging) return;
  const at = cellTarget(event);
  if (!at) return;
  if (state.tool === "select" && state.selection && at.grid === state.selection.grid) {
    state.selection.r1 = at.r;
    state.selection.c1 = at.c;
    paintSelection();
  } else if (state.tool === "edit" && at.grid === "output") {
    setCellColour(at.r, at.c);
  }
}

function copySelection() {
  const sel = state.selection;
  if (!sel) return say("select cells on the input or the output first (Select tool)", true);
  const b = selectionBounds(sel);
  const source = sel.grid === "input" ? testInput() : state.output;
  state.clipboard = source.slice(b.top, b.bottom + 1).map((row) => row.slice(b.left, b.right + 1));
  say(`copied ${sizeText(state.clipboard)} from the ${sel.grid}`);
}

// Paste the clipboard with its top-left corner at the selection's top-left on the output.
function pasteSelection() {
  const sel = state.selection;
  if (!state.clipboard) return say("nothing copied yet: select cells and press C", true);
  if (!sel || sel.grid !== "output") return say("select where to paste on the output first", true);
  const b = selectionBounds(sel);
  state.clipboard.forEach((row, dr) => row.forEach((v, dc) => {
    const r = b.top + dr;
    const c = b.left + dc;
    if (r < state.output.length && c < state.output[0].length) state.output[r][c] = v;
  }));
  renderWorkbench();
  say(`pasted ${sizeText(state.clipboard)}`);
}

function fillSelection() {
  const sel = state.selection;
  if (!sel || sel.grid !== "output") return say("select cells on the output first (Select tool)", true);
  const b = selectionBounds(sel);
  for (let r = b.top; r <= b.bottom; r++) for (let c = b.left; c <= b.right; c++) state.output[r][c] = state.colour;
  renderWorkbench();
}

function resizeOutput() {
  const match = /^\s*(\d+)\s*[x×X*,]\s*(\d+)\s*$/.exec($("size").value);
  const rows = match ? Number(match[1]) : 0;
  const cols = match ? Number(match[2]) : 0;
  if (rows < 1 || cols < 1 || rows > MAX_SIDE || cols > MAX_SIDE) {
    return say(`size "${$("size").value}": write rows x columns, e.g. 10x20, each 1-30`, true);
  }
  const grid = makeGrid(rows, cols);
  // keep what was drawn where the two sizes overlap
  state.output.forEach((row, r) => row.forEach((v, c) => { if (r < rows && c < cols) grid[r][c] = v; }));
  setOutput(grid);
}

function submit() {
  const expected = state.expected[state.testIndex];
  if (!expected) return setVerdict("no known answer to check against", "");
  state.attempts[state.testIndex] += 1;
  if (sameGrid(state.output, expected)) setVerdict("Correct!", "ok");
  else setVerdict("Wrong", "bad");
}

function setColour(colour) {
  state.colour = colour;
  document.querySelectorAll("#palette .swatch").forEach((s) => s.classList.toggle("active", Number(s.dataset.colour) === colour));
}

function buildPalette() {
  const palette = $("palette");
  for (let colour = 0; colour <= 9; colour++) {
    const swatch = el("button", String(colour), `swatch c${colour}`);
    swatch.type = "button";
    swatch.dataset.colour = colour;
    swatch.title = `colour ${colour}`;
    swatch.addEventListener("click", () => setColour(colour));
    palette.appendChild(swatch);
  }
  setColour(state.colour);
}

function onKey(event) {
  // keys typed into a text field are text; a focused radio button or button is no reason to ignore them
  const typing = event.target.matches("textarea, select, input:not([type=radio]):not([type=file]):not([type=button])");
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  if (!state.task || $("view-solve").hidden) return;
  const key = event.key.toLowerCase();
  if (key === "c") copySelection();
  else if (key === "v") pasteSelection();
  else if (/^[0-9]$/.test(key)) setColour(Number(key));
}

// ---------------------------------------------------------------- browse a run

function solverOf(result) {
  return (result.trace && result.trace.solver) || result.solver || "?";
}

function parseJsonl(text, name) {
  const lines = text.split("\n").filter((line) => line.trim());
  const results = [];
  lines.forEach((line, i) => {
    try {
      results.push(JSON.parse(line));
    } catch (err) {
      // a killed run may leave half a last line
      if (i < lines.length - 1) throw new Error(`${name} line ${i + 1}: ${err.message}`);
    }
  });
  return results;
}

function loadRun(run) {
  state.run = run;
  state.currentId = null;
  const solvers = [...new Set(run.results.map(solverOf))].sort();
  $("filter-solver").replaceChildren(el("option", "all solvers"), ...solvers.map((s) => el("option", s)));
  $("filter-solver").options[0].value = "";
  renderSummary();
  $("run-empty").hidden = true;
  $("run-body").hidden = false;
  renderTaskList();
  $("task-detail").replaceChildren(el("p", "Pick a task on the left.", "empty"));
  showView("run");
  say(`loaded run ${run.name ? `${run.name} ` : ""}with ${run.results.length} tasks`);
}

function renderSummary() {
  const { results, summary, name } = state.run;
  const s = summary || {};
  const solved = results.filter((r) => r.status === "solved").length;
  const parts = [
    name ? `run ${name}` : "",
    s.solver ? `solver ${s.solver}` : "",
    s.tasks ? `tasks ${s.tasks}` : "",
    `solved ${s.solved ?? solved}/${s.n_tasks ?? results.length}`,
    s.pass_at_2 != null ? `pass@2 ${(100 * s.pass_at_2).toFixed(1)}%` : "",
    s.time_s != null ? `time ${Number(s.time_s).toFixed(1)} s` : "",
  ];
  $("run-summary").replaceChildren(...parts.filter(Boolean).map((p) => el("span", p)));
}

function filteredResults() {
  const query = $("search").value.trim().toLowerCase();
  const status = $("filter-status").value;
  const solver = $("filter-solver").value;
  return state.run.results.filter((r) => (!status || r.status === status)
    && (!solver || solverOf(r) === solver)
    && (!query || String(r.task_id).toLowerCase().includes(query)));
}

function renderTaskList() {
  const shown = filteredResults();
  $("task-count").textContent = `${shown.length} of ${state.run.results.length} tasks`;
  $("task-list").replaceChildren(...shown.map((result) => {
    const item = el("li");
    item.dataset.id = result.task_id;
    item.classList.toggle("current", result.task_id === state.currentId);
    item.append(el("span", result.task_id, "task-id"), el("span", STATUS_LABELS[result.status] || result.status, `badge ${result.status}`));
    const time = result.time_s != null ? `${Number(result.time_s).toFixed(2)} s` : "";
    item.appendChild(el("span", [solverOf(result), time].filter(Boolean).join(" · "), "meta"));
    item.addEventListener("click", () => showResult(result.task_id));
    return item;
  }));
}

// Cells where a candidate differs from the expected grid; null when the sizes differ.
function wrongCells(candidate, expected) {
  if (candidate.length !== expected.length || candidate[0].length !== expected[0].length) return null;
  return candidate.map((row, r) => row.map((v, c) => v !== expected[r][c]));
}

function candidateFigure(candidate, expected, index) {
  const label = `attempt ${index + 1}`;
  if (gridProblem(candidate)) return el("span", `${label}: not a grid`, "caption bad");
  if (!expected) return figure(candidate, `${label} ${sizeText(candidate)}`, { box: 200 });
  const wrong = wrongCells(candidate, expected);
  if (!wrong) return figure(candidate, `${label}: size ${sizeText(candidate)}, expected ${sizeText(expected)}`, { box: 200 }, "bad");
  const n = wrong.flat().filter(Boolean).length;
  return figure(candidate, `${label}: ${n ? `${n} wrong cell${n > 1 ? "s" : ""}` : "correct"}`, { box: 200, wrong }, n ? "bad" : "ok");
}

function showResult(taskId) {
  const result = state.run.results.find((r) => r.task_id === taskId);
  if (!result) return;
  state.currentId = taskId;
  document.querySelectorAll("#task-list li").forEach((li) => li.classList.toggle("current", li.dataset.id === taskId));
  const detail = $("task-detail");
  const head = el("h2");
  head.append(el("span", `${result.task_id} `, "task-id"), el("span", STATUS_LABELS[result.status] || result.status, `badge ${result.status}`));
  const time = result.time_s != null ? ` in ${Number(result.time_s).toFixed(2)} s` : "";
  const nodes = [head, el("p", `solver ${solverOf(result)}${time}`)];
  if (result.error) nodes.push(el("pre", result.error, "error"));
  const task = result.task;
  if (task && !taskProblem(task)) {
    const solveButton = el("button", "Solve this task by hand");
    solveButton.id = "solve-this";
    solveButton.addEventListener("click", () => { if (loadTask(task, result.task_id, result.expected)) showView("solve"); });
    nodes.push(solveButton, el("h3", "Demonstrations"), renderPairs(task.train, 120));
    task.test.forEach((pair, i) => nodes.push(...testSection(result, pair.input, i)));
  } else {
    nodes.push(el("p", "this result carries no task to show", "empty"));
  }
  const program = result.trace && result.trace.program;
  if (program) nodes.push(el("h3", "Program"), el("pre", program, "program"));
  detail.replaceChildren(...nodes);
}

// One test input: the input, each candidate with its wrong cells marked, the expected output.
function testSection(result, input, i) {
  const expected = result.expected ? result.expected[i] : null;
  const correct = result.correct ? result.correct[i] : null;
  const verdict = correct === true ? " (correct)" : correct === false ? " (wrong)" : "";
  const row = el("div", "", "test-row");
  row.dataset.test = i;
  row.appendChild(figure(input, `input ${sizeText(input)}`, { box: 200 }));
  const candidates = (result.attempts && result.attempts[i]) || [];
  if (!candidates.length) row.appendChild(el("span", "no candidate", "caption bad"));
  candidates.forEach((candidate, j) => row.appendChild(candidateFigure(candidate, expected, j)));
  if (expected) row.appendChild(figure(expected, `expected ${sizeText(expected)}`, { box: 200 }));
  return [el("h3", `Test input ${i + 1}${verdict}`), row];
}

// ---------------------------------------------------------------- files and start-up

function readText(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(new Error(`${file.name}: cannot read`));
    reader.readAsText(file);
  });
}

// Picked or dropped files: a results.jsonl (with its summary.json) opens as a run, a task
// .json opens in the solve view.
async function openFiles(fileList) {
  const files = [...fileList];
  try {
    const jsonl = files.find((f) => f.name.endsWith(".jsonl"));
    if (jsonl) {
      const summaryFile = files.find((f) => f.name === "summary.json");
      const results = parseJsonl(await readText(jsonl), jsonl.name);
      const summary = summaryFile ? JSON.parse(await readText(summaryFile)) : null;
      loadRun({ name: summary && summary.name ? summary.name : "", results, summary });
      return;
    }
    const file = files.find((f) => f.name.endsWith(".json"));
    if (!file) return say("expected a task .json or a run's results.jsonl", true);
    const data = JSON.parse(await readText(file));
    if (file.name === "summary.json" || !data.train) {
      return say(`${file.name}: not an ARC task; for a run, pick results.jsonl too`, true);
    }
    if (loadTask(data, file.name.replace(/\.json$/, ""))) showView("solve");
  } catch (err) {
    say(err.message, true);
  }
}

// The run the server serves, if any (the page may also be opened as a file).
async function fetchServedRun() {
  if (!location.protocol.startsWith("http")) return null;
  const response = await fetch("run/results.jsonl", { cache: "no-store" });
  if (!response.ok) return null;
  const results = parseJsonl(await response.text(), "results.jsonl");
  const summaryResponse = await fetch("run/summary.json", { cache: "no-store" });
  const summary = summaryResponse.ok ? await summaryResponse.json() : null;
  return { name: "", results, summary };
}

function bind() {
  document.querySelectorAll(".tab").forEach((tab) => tab.addEventListener("click", () => showView(tab.dataset.view)));
  $("task-file").addEventListener("change", (e) => openFiles(e.target.files));
  $("run-files").addEventListener("change", (e) => openFiles(e.target.files));
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", (e) => { e.preventDefault(); openFiles(e.dataTransfer.files); });
  const workbench = document.querySelector(".workbench");
  workbench.addEventListener("mousedown", onGridMouseDown);
  workbench.addEventListener("mouseover", onGridMouseOver);
  document.addEventListener("mouseup", () => { state.dragging = false; });
  document.addEventListener("keydown", onKey);
  document.querySelectorAll('input[name="tool"]').forEach((radio) => radio.addEventListener("change", () => { state.tool = radio.value; }));
  $("resize").addEventListener("click", resizeOutput);
  $("size").addEventListener("keydown", (e) => { if (e.key === "Enter") resizeOutput(); });
  $("copy-input").addEventListener("click", () => setOutput(copyGrid(testInput())));
  $("reset").addEventListener("click", () => setOutput(makeGrid(3, 3)));
  $("fill").addEventListener("click", fillSelection);
  $("copy").addEventListener("click", copySelection);
  $("paste").addEventListener("click", pasteSelection);
  $("submit").addEventListener("click", submit);
  $("next-test").addEventListener("click", () => showTest(state.testIndex + 1));
  for (const id of ["search", "filter-status", "filter-solver"]) $(id).addEventListener("input", renderTaskList);
}

async function start() {
  buildPalette();
  bind();
  showView("solve");
  if (window.ARC_TASK) loadTask(window.ARC_TASK.task, window.ARC_TASK.id);
  if (window.ARC_RUN) loadRun(window.ARC_RUN);
  else {
    try {
      const run = await fetchServedRun();
      if (run) loadRun(run);
    } catch (err) {
      say(`cannot load the served run: ${err.message}`, true);
    }
  }
  document.body.dataset.ready = "1";
}

start();
