// The ARC page: solve a task by hand, or browse a run folder of `python -m shared solve`.
// Plain DOM, no framework. Tasks come from the server's picker (api/: sets, one task without
// its test outputs, submits checked and kept there), from a file the user picks or drops, or
// from window.ARC_TASK; a run from the server (run/results.jsonl, run/summary.json), from
// picked files or from window.ARC_RUN, which page_html embeds for notebooks. A served run of
// `python -m shared play` opens in the replay view instead: its games (api/play/games), and per
// game every action with the frame it led to (api/play/game), drawn on a canvas step by step.
"use strict";

const MAX_SIDE = 30;
const STATUS_LABELS = { solved: "solved", unsolved: "unsolved", timeout: "timed out", error: "error", unscored: "unscored" };
const $ = (id) => document.getElementById(id);

const state = {
  // solve view: per test input an output grid, its undo and redo stacks and its attempts
  task: null, taskId: "", taskSet: "", serverChecks: false, expected: [], testIndex: 0,
  outputs: [], undo: [], redo: [], attempts: [], edits: 0, openedAt: 0, stroke: null,
  colour: 1, tool: "edit", selection: null, clipboard: null, dragging: false,
  get output() { return this.outputs[this.testIndex]; },
  // task picker: name -> {ids, tasks}; the server's own sets; the address of the open task
  sets: new Map(), server: false, serverSets: [], hash: "",
  // the last task asked for ({set, id}, null once it has loaded or failed) and its request's number
  wantedTask: null, taskRequests: 0,
  // run view
  run: null, currentId: null,
  // replay view: the play run's games, the open game ({game, frames, palette}) and its step
  play: null, replay: null, step: 0, wantedGame: "",
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
// `label` names the grid in the hover line of the solve view.
function renderGrid(grid, { name = "", box = 160, wrong = null, label = "" } = {}) {
  const node = document.createElement("div");
  const size = cellSize(grid, box);
  node.className = "grid";
  if (name) node.dataset.grid = name;
  if (label || name) node.dataset.label = label || name;
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
    node.appendChild(figure(pair.input, `demo ${i + 1} input ${sizeText(pair.input)}`, { box, label: `demo ${i + 1} input` }));
    const arrow = document.createElement("span");
    arrow.className = "arrow";
    arrow.textContent = "→";
    node.appendChild(arrow);
    node.appendChild(figure(pair.output, `output ${sizeText(pair.output)}`, { box, label: `demo ${i + 1} output` }));
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
  $("view-play").hidden = name !== "play";
  $("tab-solve").classList.toggle("active", name === "solve");
  $("tab-run").classList.toggle("active", name === "run");
  $("tab-play").classList.toggle("active", name === "play");
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

// Load a task into the solve view. `set` names where it came from: a set the server checks
// answers for (its payload has no test outputs), or "" / a local set, checked here against
// `expected` (the known test outputs; null: unknown).
function loadTask(task, id, expected = null, set = "") {
  const problem = taskProblem(task);
  if (problem) {
    say(`${id}: ${problem}`, true);
    return false;
  }
  state.task = task;
  state.taskId = id;
  state.taskSet = set;
  state.serverChecks = state.serverSets.includes(set);
  state.expected = task.test.map((pair, i) => (expected && expected[i]) || pair.output || null);
  state.attempts = task.test.map(() => 0);
  state.outputs = task.test.map(() => makeGrid(3, 3));
  state.undo = task.test.map(() => []);
  state.redo = task.test.map(() => []);
  state.edits = 0;
  state.openedAt = performance.now();
  $("task-name").textContent = id;
  $("solve-empty").hidden = true;
  $("solve-body").hidden = false;
  $("demos").replaceChildren(...renderPairs(task.train).childNodes);
  showTest(0);
  updateTaskButtons();
  say(`loaded task ${set ? `${set}/` : ""}${id}`);
  return true;
}

// Each test input keeps its own output, history and attempts while the task is open.
function showTest(index) {
  state.testIndex = index;
  state.selection = null;
  const n = state.task.test.length;
  $("test-index").textContent = `${index + 1} of ${n}`;
  $("input-size").textContent = sizeText(testInput());
  $("prev-test").disabled = index <= 0;
  $("next-test").disabled = index + 1 >= n;
  $("hover").textContent = "\u00a0";
  $("size").value = sizeText(state.output);
  renderWorkbench();
  setVerdict("", "");
}

function testInput() {
  return state.task.test[state.testIndex].input;
}

// Every change to the output goes through here: the grid before it goes on the undo stack.
function changeOutput(grid) {
  if (sameGrid(grid, state.output)) return;
  pushHistory(state.output);
  state.outputs[state.testIndex] = grid;
  showOutput();
}

function pushHistory(before) {
  state.undo[state.testIndex].push(copyGrid(before));
  state.redo[state.testIndex] = [];
  state.edits += 1;
}

function showOutput() {
  if (state.selection && state.selection.grid === "output") {
    const b = selectionBounds(state.selection);
    if (b.bottom >= state.output.length || b.right >= state.output[0].length) state.selection = null;
  }
  $("size").value = sizeText(state.output);
  renderWorkbench();
}

function undo(steps = "undo") {
  const from = state[steps][state.testIndex];
  const to = state[steps === "undo" ? "redo" : "undo"][state.testIndex];
  if (!from.length) return say(`nothing to ${steps}`);
  to.push(copyGrid(state.output));
  state.outputs[state.testIndex] = from.pop();
  state.edits += 1;
  showOutput();
}

function renderWorkbench() {
  $("test-input").replaceChildren(renderGrid(testInput(), { name: "input", box: 360, label: "test input" }));
  const editor = renderGrid(state.output, { name: "output", box: 360 });
  editor.classList.add("editable");
  $("output-editor").replaceChildren(editor);
  paintSelection();
  $("undo").disabled = !state.undo[state.testIndex].length;
  $("redo").disabled = !state.redo[state.testIndex].length;
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

// Painting during a drag edits the grid in place; the stroke is one step of the history.
function setCellColour(r, c) {
  if (state.output[r][c] === state.colour) return;
  if (!state.stroke) state.stroke = copyGrid(state.output);
  state.output[r][c] = state.colour;
  const cell = $("output-editor").querySelector(`.cell[data-r="${r}"][data-c="${c}"]`);
  cell.className = `cell c${state.colour}`;
}

function endStroke() {
  state.dragging = false;
  if (!state.stroke) return;
  pushHistory(state.stroke);
  state.stroke = null;
  renderWorkbench();
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
    const grid = copyGrid(state.output);
    floodFill(grid, at.r, at.c, state.colour);
    changeOutput(grid);
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

// The hover line: which grid, which cell (from 0), the grid's size.
function onHover(event) {
  const cell = event.target.closest(".cell");
  const grid = cell && cell.closest(".grid[data-label]");
  if (!grid) return;
  const [r, c] = [cell.dataset.r, cell.dataset.c];
  $("hover").textContent = `${grid.dataset.label}: row ${r}, col ${c} of ${grid.dataset.size}`;
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
  const grid = copyGrid(state.output);
  state.clipboard.forEach((row, dr) => row.forEach((v, dc) => {
    const r = b.top + dr;
    const c = b.left + dc;
    if (r < grid.length && c < grid[0].length) grid[r][c] = v;
  }));
  changeOutput(grid);
  say(`pasted ${sizeText(state.clipboard)}`);
}

// As in the original ARC testing interface: with cells selected on the output, a colour fills them.
function fillSelection(colour) {
  const b = selectionBounds(state.selection);
  const grid = copyGrid(state.output);
  for (let r = b.top; r <= b.bottom; r++) for (let c = b.left; c <= b.right; c++) grid[r][c] = colour;
  changeOutput(grid);
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
  changeOutput(grid);
}

// The server checks a served set's answers (the page never holds them) and keeps every submit;
// a task from a file is checked here, and kept too when a server is there to keep it.
async function submit() {
  const i = state.testIndex;
  setVerdict("", "");  // empty until this submit's verdict comes
  const body = {
    set: state.taskSet, id: state.taskId, test: i, grid: state.output,
    seconds: (performance.now() - state.openedAt) / 1000, edits: state.edits,
  };
  let correct = null;
  let attempt = state.attempts[i] + 1;
  try {
    if (state.serverChecks) {
      const answer = await postJson("api/submit", body);
      correct = answer.correct;
      attempt = answer.attempt;
    } else {
      correct = state.expected[i] ? sameGrid(state.output, state.expected[i]) : null;
      if (state.server) {
        await postJson("api/record", { ...body, set: `file:${state.taskSet || "page"}`, n_tests: state.task.test.length, correct });
      }
    }
  } catch (err) {
    return say(`submit failed: ${err.message}`, true);
  }
  state.attempts[i] = attempt;
  if (correct === null) setVerdict("no known answer to check against", "");
  else if (correct) setVerdict("Correct!", "ok");
  else setVerdict("Wrong", "bad");
}

async function postJson(url, body) {
  const response = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || `${url}: HTTP ${response.status}`);
  return answer;
}

// Picking a colour; with cells selected on the output (Select tool) it also fills them.
function pickColour(colour) {
  setColour(colour);
  const sel = state.selection;
  if (state.task && state.tool === "select" && sel && sel.grid === "output") fillSelection(colour);
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
    swatch.addEventListener("click", () => pickColour(colour));
    palette.appendChild(swatch);
  }
  setColour(state.colour);
}

function onKey(event) {
  // keys typed into a text field are text; a focused radio button or button is no reason to ignore them
  const typing = event.target.matches("textarea, select, input:not([type=radio]):not([type=file]):not([type=button])");
  if (typing || event.altKey || !state.task || $("view-solve").hidden) return;
  const key = event.key.toLowerCase();
  if (event.ctrlKey || event.metaKey) {
    if (key === "z" && !event.shiftKey) undo("undo");
    else if (key === "y" || (key === "z" && event.shiftKey)) undo("redo");
    else return;
    event.preventDefault();
    return;
  }
  if (key === "c") copySelection();
  else if (key === "v") pasteSelection();
  else if (/^[0-9]$/.test(key)) pickColour(Number(key));
}

// ---------------------------------------------------------------- the task picker

// A set: its ids (null until fetched from the server) and, for a set read from files here, its tasks.
function addSet(name, ids = null, tasks = null) {
  state.sets.set(name, { ids, tasks });
  $("picker").hidden = false;
  const picker = $("set-picker");
  if (![...picker.options].some((o) => o.value === name)) picker.appendChild(el("option", name)).value = name;
}

async function setIds(name) {
  const set = state.sets.get(name);
  if (!set) throw new Error(`no task set ${name} on this page`);
  if (!set.ids) set.ids = (await getJson(`api/tasks?set=${encodeURIComponent(name)}`)).ids;
  return set.ids;
}

async function getJson(url) {
  const response = await fetch(url, { cache: "no-store" });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || `${url}: HTTP ${response.status}`);
  return answer;
}

async function chooseSet(name) {
  $("set-picker").value = name;
  try {
    const ids = await setIds(name);
    $("set-count").textContent = `${ids.length} tasks`;
  } catch (err) {
    say(err.message, true);
  }
  renderMatches();
  updateTaskButtons();
}

// Open a task of a set; the address becomes #task=<set>/<id>, so it can be bookmarked or shared.
// Quick clicks ask for tasks faster than the server answers: each request is
// numbered, the buttons step from the last task asked for, and an answer that
// arrives after a newer request is dropped, so the page shows what was asked last.
async function openTask(name, id) {
  const request = ++state.taskRequests;
  state.wantedTask = { set: name, id };
  try {
    const set = state.sets.get(name);
    if (!set) throw new Error(`no task set ${name} on this page`);
    if ($("set-picker").value !== name || !set.ids) await chooseSet(name);
    let answer;
    if (set.tasks) {
      if (!set.tasks[id]) throw new Error(`task ${id} is not in ${name}`);
      answer = { task: set.tasks[id], id };
    } else {
      answer = await getJson(`api/task?set=${encodeURIComponent(name)}&id=${encodeURIComponent(id)}`);
    }
    if (request !== state.taskRequests) return;
    state.wantedTask = null;
    if (!loadTask(answer.task, answer.id, null, name)) return;
    state.hash = `#task=${name}/${id}`;
    if (location.hash !== state.hash) history.replaceState(null, "", state.hash);
    showView("solve");
  } catch (err) {
    if (request === state.taskRequests) state.wantedTask = null;
    say(err.message, true);
  }
}

function taskFromHash() {
  const match = /^#task=(.+)\/([^/]+)$/.exec(decodeURIComponent(location.hash));
  return match ? { set: match[1], id: match[2] } : null;
}

async function onHashChange() {
  const wanted = taskFromHash();
  if (wanted && location.hash !== state.hash) await openTask(wanted.set, wanted.id);
}

function currentIds() {
  const set = state.sets.get($("set-picker").value);
  return (set && set.ids) || [];
}

function updateTaskButtons() {
  const ids = currentIds();
  const at = state.taskSet === $("set-picker").value ? ids.indexOf(state.taskId) : -1;
  $("random-task").disabled = !ids.length;
  $("prev-task").disabled = at <= 0;
  $("next-task").disabled = at < 0 || at + 1 >= ids.length;
}

function stepTask(step) {
  const ids = currentIds();
  const wanted = state.wantedTask;
  const from = wanted && wanted.set === $("set-picker").value ? wanted.id : state.taskId;
  const at = ids.indexOf(from);
  if (at >= 0 && ids[at + step]) openTask($("set-picker").value, ids[at + step]);
}

function randomTask() {
  const ids = currentIds();
  if (ids.length) openTask($("set-picker").value, ids[Math.floor(Math.random() * ids.length)]);
}

const MAX_MATCHES = 40;

function renderMatches() {
  const query = $("task-search").value.trim().toLowerCase();
  const list = $("picker-matches");
  const matches = query ? currentIds().filter((id) => id.toLowerCase().includes(query)) : [];
  list.hidden = !query;
  list.replaceChildren(...matches.slice(0, MAX_MATCHES).map((id) => {
    const item = el("li", id);
    item.dataset.id = id;
    item.addEventListener("click", () => openTask($("set-picker").value, id));
    return item;
  }));
  if (query && !matches.length) list.appendChild(el("li", `no task id holds "${query}"`, "empty"));
  else if (matches.length > MAX_MATCHES) list.appendChild(el("li", `… ${matches.length - MAX_MATCHES} more`, "empty"));
}

// The sets the server offers (none when the page is opened as a file or in a notebook).
async function fetchServedSets() {
  if (!location.protocol.startsWith("http")) return;
  const response = await fetch("api/sets", { cache: "no-store" });
  if (!response.ok) return;
  const answer = await response.json();
  state.server = true;
  state.serverSets = answer.sets;
  answer.sets.forEach((name) => addSet(name));
  $("recording").textContent = answer.recording ? `submits are kept in ${answer.recording}` : "submits are not kept";
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
    (s.wall_s ?? s.time_s) != null ? `time ${Number(s.wall_s ?? s.time_s).toFixed(1)} s` : "",
  ];
  $("run-summary").replaceChildren(...parts.filter(Boolean).map((p) => el("span", p)));
}

// "failed, closest first": the tasks not solved that have answers to compare, the best attempt's
// share of right cells first.
function filteredResults() {
  const query = $("search").value.trim().toLowerCase();
  const status = $("filter-status").value;
  const solver = $("filter-solver").value;
  const closest = $("sort-by").value === "closest";
  const shown = state.run.results.filter((r) => (!status || r.status === status)
    && (!solver || solverOf(r) === solver)
    && (!query || String(r.task_id).toLowerCase().includes(query))
    && (!closest || (r.status !== "solved" && r.expected)));
  if (closest) shown.sort((a, b) => closeness(b) - closeness(a) || String(a.task_id).localeCompare(String(b.task_id)));
  return shown;
}

// Share of right cells of the best attempt, averaged over test inputs (a wrong size counts 0).
function closeness(result) {
  if (!result.expected) return 0;
  const perTest = result.expected.map((expected, i) => {
    const candidates = (result.attempts && result.attempts[i]) || [];
    const scores = candidates.map((candidate) => {
      if (gridProblem(candidate)) return 0;
      const wrong = wrongCells(candidate, expected);
      return wrong ? wrong.flat().filter((w) => !w).length / wrong.flat().length : 0;
    });
    return Math.max(0, ...scores);
  });
  return perTest.reduce((a, b) => a + b, 0) / perTest.length;
}

// The kind of answer the solver's trace names: how sure a solver was of its first attempt.
const KINDS = {
  exact: "a program that reproduces every demo",
  fitted: "a program with a fitted last step that reproduces every demo",
  rule: "a learned cell rule that reproduces every demo",
  pieces: "programs combined piece by piece",
  tree: "a guess: a decision tree over cell features",
  partial: "a guess: the closest the search came, not a program that reproduces the demos",
  none: "no answer found",
};

function kindOf(result, j = 0) {
  const trace = result.trace || {};
  if (Array.isArray(trace.kinds) && trace.kinds[j]) return trace.kinds[j];
  return j === 0 && trace.kind ? trace.kind : "";
}

function kindBadge(kind) {
  const badge = el("span", kind, `kind ${kind}`);
  badge.title = KINDS[kind] || kind;
  return badge;
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
    const near = result.status !== "solved" && result.expected ? `${Math.round(100 * closeness(result))}% cells right` : "";
    item.appendChild(el("span", [solverOf(result), kindOf(result), time, near].filter(Boolean).join(" · "), "meta"));
    item.addEventListener("click", () => showResult(result.task_id));
    return item;
  }));
}

// Cells where a candidate differs from the expected grid; null when the sizes differ.
function wrongCells(candidate, expected) {
  if (candidate.length !== expected.length || candidate[0].length !== expected[0].length) return null;
  return candidate.map((row, r) => row.map((v, c) => v !== expected[r][c]));
}

function candidateFigure(candidate, expected, index, kind = "") {
  const label = `attempt ${index + 1}${kind && kind !== "none" ? ` (${kind})` : ""}`;
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
  const kind = kindOf(result);
  if (kind) {
    const line = el("p", "answer kind ");
    line.id = "answer-kind";
    line.append(kindBadge(kind), el("span", ` ${KINDS[kind] || ""}`, "hint"));
    nodes.push(line);
  }
  if (result.error) nodes.push(el("pre", result.error, "error"));
  const task = result.task;
  if (task && !taskProblem(task)) {
    const solveButton = el("button", "Solve this task by hand");
    solveButton.id = "solve-this";
    solveButton.addEventListener("click", () => solveFromRun(result));
    nodes.push(solveButton, el("h3", "Demonstrations"), renderPairs(task.train, 120));
    task.test.forEach((pair, i) => nodes.push(...testSection(result, pair.input, i)));
  } else {
    nodes.push(el("p", "this result carries no task to show", "empty"));
  }
  nodes.push(...programNodes(result));
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
  const kinds = Array.isArray((result.trace || {}).kinds);
  candidates.forEach((candidate, j) => row.appendChild(candidateFigure(candidate, expected, j, kinds ? kindOf(result, j) : "")));
  if (expected) row.appendChild(figure(expected, `expected ${sizeText(expected)}`, { box: 200 }));
  return [el("h3", `Test input ${i + 1}${verdict}`), row];
}

// Every attempt's program (trace.programs, best first), or the one program a trace names.
function programNodes(result) {
  const trace = result.trace || {};
  const programs = Array.isArray(trace.programs) && trace.programs.length ? trace.programs : trace.program ? [trace.program] : [];
  const nodes = [];
  programs.forEach((program, j) => {
    const kind = kindOf(result, j);
    const title = programs.length > 1 ? `Program of attempt ${j + 1}` : "Program";
    const head = el("h3", title + (kind ? " " : ""));
    if (kind) head.appendChild(kindBadge(kind));
    const pre = el("pre", program, "program");
    pre.dataset.attempt = j + 1;
    nodes.push(head, pre);
  });
  return nodes;
}

// A run's task by hand: from the server when the run's set is served there (answers checked
// there), else with the run's expected outputs, checked here.
function solveFromRun(result) {
  const set = state.run.summary && state.run.summary.tasks;
  if (state.serverSets.includes(set)) openTask(set, result.task_id);
  else if (loadTask(result.task, result.task_id, result.expected, "")) showView("solve");
}

// ---------------------------------------------------------------- replay a game

// The served play run's games, or null when the served folder is not a play run.
async function fetchServedPlay() {
  if (!location.protocol.startsWith("http")) return null;
  const response = await fetch("api/play/games", { cache: "no-store" });
  if (response.status === 404) return null;
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || `api/play/games: HTTP ${response.status}`);
  return answer;
}

async function loadPlay(play) {
  state.play = play;
  const picker = $("play-game");
  picker.replaceChildren(...play.games.map((g) => {
    const option = el("option", `${g.game_id}: ${g.status}, levels ${g.levels_completed}/${g.win_levels}, ${g.actions} actions`);
    option.value = g.game_id;
    return option;
  }));
  const s = play.summary || {};
  const won = play.games.reduce((n, g) => n + (g.levels_completed || 0), 0);
  const all = play.games.reduce((n, g) => n + (g.win_levels || 0), 0);
  $("play-summary").textContent = [`run ${play.name}`, s.agent ? `agent ${s.agent}` : "",
    `${play.games.length} games`, `won ${won}/${all} levels`].filter(Boolean).join(" · ");
  $("play-empty").hidden = play.games.length > 0;
  showView("play");
  say(`loaded play run ${play.name} with ${play.games.length} games`);
  if (play.games.length) await openGame(play.games[0].game_id);
}

async function openGame(gameId) {
  state.wantedGame = gameId;  // a game picked while another loads wins: the late answer is dropped
  let answer;
  try {
    answer = await getJson(`api/play/game?id=${encodeURIComponent(gameId)}`);
  } catch (err) {
    return say(err.message, true);
  }
  if (state.wantedGame !== gameId) return;
  state.replay = answer;
  const { game } = state.replay;
  $("play-game").value = gameId;
  $("play-body").hidden = false;
  $("play-title").textContent = `${game.game_id}: ${game.title || ""}`;
  const outcome = $("play-outcome");
  const parts = [`levels ${game.levels_completed}/${game.win_levels}`, `${game.actions} actions`,
    game.stop ? `stopped by ${game.stop}` : "", game.state ? `state ${game.state}` : "",
    game.efficiency != null ? `efficiency ${Number(game.efficiency).toFixed(2)}` : ""];
  outcome.replaceChildren(el("span", game.status, `badge ${game.status}`), el("span", ` ${parts.filter(Boolean).join(" · ")}`));
  if (game.error) outcome.appendChild(el("pre", game.error, "error"));
  // the action after which each level was won: the running sums of actions per level
  let sum = 0;
  state.replay.levelEnds = (game.level_actions || []).map((n) => (sum += n));
  const items = [el("li", "reset (start)")];
  items[0].appendChild(el("span", game.start_hash || "", "hash"));
  game.log.forEach(([action, hash], i) => {
    const item = el("li", action);
    item.appendChild(el("span", hash, "hash"));
    const level = state.replay.levelEnds.indexOf(i + 1);
    if (level >= 0) {
      item.classList.add("level");
      item.title = `level ${level + 1} won`;
    }
    items.push(item);
  });
  items.forEach((item, i) => {
    item.dataset.step = i;
    item.addEventListener("click", () => showStep(i));
  });
  $("play-actions").replaceChildren(...items);
  $("play-step").max = game.log.length;
  showStep(0);
}

function stepHash(step) {
  const { game } = state.replay;
  return step === 0 ? game.start_hash : game.log[step - 1][1];
}

// Show the frame after `step` actions (0: after the reset), and highlight that action.
function showStep(step) {
  if (!state.replay) return;
  const { game, frames, palette } = state.replay;
  step = Math.max(0, Math.min(game.log.length, step));
  state.step = step;
  const hash = stepHash(step);
  const frame = frames[hash];
  const canvas = $("play-frame");
  const ctx = canvas.getContext("2d");
  canvas.dataset.hash = frame ? hash : "";
  ctx.fillStyle = "#ddd";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  if (frame) {
    const cell = canvas.width / Math.max(frame.length, frame[0].length);
    frame.forEach((row, r) => row.forEach((v, c) => {
      ctx.fillStyle = palette[v] || "#000";
      ctx.fillRect(c * cell, r * cell, cell, cell);
    }));
  }
  const missing = $("play-missing");
  missing.hidden = Boolean(frame);
  missing.textContent = frame ? "" : `frame ${hash} was not recorded (a run from before the harness kept frames?)`;
  const won = state.replay.levelEnds.filter((end) => end <= step).length;
  const action = step === 0 ? "reset" : game.log[step - 1][0];
  $("play-at").textContent = `step ${step} of ${game.log.length}: ${action} → frame ${hash} · levels ${won}/${game.win_levels}`;
  $("play-step").value = step;
  $("play-first").disabled = $("play-prev").disabled = step === 0;
  $("play-last").disabled = $("play-next").disabled = step === game.log.length;
  document.querySelectorAll("#play-actions li").forEach((li) => li.classList.toggle("current", Number(li.dataset.step) === step));
  const current = document.querySelector("#play-actions li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

function onPlayKey(event) {
  if ($("view-play").hidden || !state.replay || event.altKey || event.ctrlKey || event.metaKey) return;
  // the slider moves itself on arrow keys; a select or text field keeps its own keys
  if (event.target.matches("select, textarea, input:not([type=button])")) return;
  const moves = { ArrowRight: state.step + 1, ArrowLeft: state.step - 1, Home: 0, End: state.replay.game.log.length };
  if (!(event.key in moves)) return;
  event.preventDefault();
  showStep(moves[event.key]);
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

// Picked or dropped files: a results.jsonl (with its summary.json) opens as a run; task files
// (one, several, a folder) and Kaggle challenges files (with their solutions file, if picked
// too) become sets in the task picker, and the first task opens in the solve view.
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
    const jsons = files.filter((f) => f.name.endsWith(".json"));
    if (!jsons.length) return say("expected task .json files, a Kaggle challenges file or a run's results.jsonl", true);
    const read = [];
    for (const file of jsons) read.push({ file, stem: file.name.replace(/\.json$/, ""), data: JSON.parse(await readText(file)) });
    const isTask = (data) => data && typeof data === "object" && "train" in data && "test" in data;
    const isSolutions = (data) => data && !Array.isArray(data) && Object.values(data).every(Array.isArray);
    const solutions = read.filter((r) => !isTask(r.data) && isSolutions(r.data));
    const folder = (jsons[0].webkitRelativePath || "").split("/")[0];
    const sets = [];  // [name, {id: task}]
    const loose = {};
    for (const { file, stem, data } of read) {
      if (isTask(data)) loose[stem] = data;
      else if (data && typeof data === "object" && !Array.isArray(data) && Object.values(data).some(isTask)) {
        const tasks = Object.fromEntries(Object.entries(data).filter(([, t]) => isTask(t)));
        const sol = solutions.find((s) => Object.keys(s.data).some((id) => id in tasks));
        if (sol) mergeSolutions(tasks, sol.data);
        sets.push([stem, tasks]);
      } else if (file.name === "summary.json" || !solutions.some((s) => s.file === file)) {
        return say(`${file.name}: not an ARC task or a Kaggle challenges file; for a run, pick results.jsonl too`, true);
      }
    }
    const looseIds = Object.keys(loose);
    if (looseIds.length) sets.unshift([folder || (looseIds.length === 1 ? looseIds[0] : "picked files"), loose]);
    if (!sets.length) return say("a solutions file alone holds no tasks: pick its challenges file too", true);
    let first = null;
    for (const [name, tasks] of sets) {
      const setName = state.serverSets.includes(name) ? `${name} (file)` : name;
      const good = {};
      const problems = [];
      for (const [id, task] of Object.entries(tasks)) {
        const problem = taskProblem(task);
        if (problem) problems.push(`${id}: ${problem}`);
        else good[id] = task;
      }
      if (!Object.keys(good).length) return say(problems[0], true);
      addSet(setName, Object.keys(good).sort(), good);
      if (!first) first = setName;
      if (problems.length) say(`skipped ${problems.length} bad task(s), first: ${problems[0]}`, true);
    }
    await chooseSet(first);
    await openTask(first, currentIds()[0]);
  } catch (err) {
    say(err.message, true);
  }
}

// A Kaggle solutions file (task id -> test outputs) merged into its challenges' tasks.
function mergeSolutions(tasks, solutions) {
  for (const [id, task] of Object.entries(tasks)) {
    const outputs = solutions[id];
    if (!outputs) continue;
    task.test = task.test.map((pair, i) => (outputs[i] ? { ...pair, output: outputs[i] } : pair));
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
  for (const id of ["task-file", "task-folder", "run-files"]) {
    $(id).addEventListener("change", (e) => { openFiles(e.target.files); e.target.value = ""; });
  }
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", (e) => { e.preventDefault(); openFiles(e.dataTransfer.files); });
  const workbench = document.querySelector(".workbench");
  workbench.addEventListener("mousedown", onGridMouseDown);
  workbench.addEventListener("mouseover", onGridMouseOver);
  $("view-solve").addEventListener("mouseover", onHover);
  document.addEventListener("mouseup", endStroke);
  document.addEventListener("keydown", onKey);
  document.addEventListener("keydown", onPlayKey);
  $("play-game").addEventListener("change", () => openGame($("play-game").value));
  $("play-first").addEventListener("click", () => showStep(0));
  $("play-prev").addEventListener("click", () => showStep(state.step - 1));
  $("play-next").addEventListener("click", () => showStep(state.step + 1));
  $("play-last").addEventListener("click", () => showStep(Infinity));
  $("play-step").addEventListener("input", () => showStep(Number($("play-step").value)));
  document.querySelectorAll('input[name="tool"]').forEach((radio) => radio.addEventListener("change", () => { state.tool = radio.value; }));
  $("resize").addEventListener("click", resizeOutput);
  $("size").addEventListener("keydown", (e) => { if (e.key === "Enter") resizeOutput(); });
  $("copy-input").addEventListener("click", () => changeOutput(copyGrid(testInput())));
  $("reset").addEventListener("click", () => changeOutput(makeGrid(3, 3)));
  $("undo").addEventListener("click", () => undo("undo"));
  $("redo").addEventListener("click", () => undo("redo"));
  $("copy").addEventListener("click", copySelection);
  $("paste").addEventListener("click", pasteSelection);
  $("submit").addEventListener("click", submit);
  $("prev-test").addEventListener("click", () => showTest(state.testIndex - 1));
  $("next-test").addEventListener("click", () => showTest(state.testIndex + 1));
  $("set-picker").addEventListener("change", () => chooseSet($("set-picker").value));
  $("task-search").addEventListener("input", renderMatches);
  $("task-search").addEventListener("keydown", (e) => {
    const first = $("picker-matches").querySelector("li[data-id]");
    if (e.key === "Enter" && first) openTask($("set-picker").value, first.dataset.id);
  });
  $("random-task").addEventListener("click", randomTask);
  $("prev-task").addEventListener("click", () => stepTask(-1));
  $("next-task").addEventListener("click", () => stepTask(1));
  window.addEventListener("hashchange", onHashChange);
  for (const id of ["search", "filter-status", "filter-solver", "sort-by"]) $(id).addEventListener("input", renderTaskList);
}

async function start() {
  buildPalette();
  bind();
  showView("solve");
  updateTaskButtons();
  try {
    await fetchServedSets();
  } catch (err) {
    say(`cannot list the served task sets: ${err.message}`, true);
  }
  if (window.ARC_TASK) loadTask(window.ARC_TASK.task, window.ARC_TASK.id);
  if (window.ARC_RUN) loadRun(window.ARC_RUN);
  else {
    try {
      const play = await fetchServedPlay();
      if (play) await loadPlay(play);
      else {
        const run = await fetchServedRun();
        if (run) loadRun(run);
      }
    } catch (err) {
      say(`cannot load the served run: ${err.message}`, true);
    }
  }
  const wanted = taskFromHash();
  if (wanted) await openTask(wanted.set, wanted.id);
  else if (state.sets.size) await chooseSet($("set-picker").options[0].value);
  document.body.dataset.ready = "1";
}

start();
