"""The compiled core's driver: owns the bank and tables, runs the enumeration level by level
in short compiled calls (so the clock is watched between them), grows the arrays when they
fill, and reads back what the search found.

`CoreSearch(demo_inputs, demo_outputs, test_inputs, deadline, max_depth).run()` enumerates every
program of kernel primitives up to `max_depth` steps (parameters baked in, one op per parameter
set, colours from the task), shallowest first. A split into parts and the join that makes one
image of them are one op of the core that costs two steps of the depth. A last step whose image
of the first demo is no better than its state's (cells right, no colour map to the output) stops
there (`prune`); with `finish`, a last step too big for the outputs may be cropped to them at no
depth cost (`FINISHERS`). With `beam`, a search that exhausted its depth with no exact
program and time left climbs on: one step more from the sized states of its last level with the
most demo cells right, each kept only where it mends more of the first demo (the prune), and
again from the best of those. Afterwards `exact()` are the states that
reproduce every demo output, `sized()` those with the outputs' shapes ranked by cells right,
`grids(s)` a state's images and `node(s)` its program, which prints with the registry's
primitives (the same kernels, called from Python).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from shared.solvers.dsl import jit
from shared.solvers.dsl.core import engine as E
from shared.solvers.dsl.core import kernels
from shared.solvers.dsl.fitters import FitContext, fit_state
from shared.solvers.dsl.primitives import Op, search_ops
from shared.solvers.dsl.primitives.registry import encode
from shared.solvers.dsl.program import INPUT, Node, call
from shared.solvers.dsl.search import Candidate, Sized
from shared.solvers.dsl.types import GRID, MARKER

CHUNK_S = 0.02            # a compiled call expands states for about this long before the clock is read
MAX_BYTES = 2_500_000_000  # the bank and tables together; past this the search stops ("memory")
SHAPE_CODE = {"any": 0, "keep": 1, "change": 2}
STRETCH_MARGIN = 1.3       # the last level's projected time is its pace so far times this
BEAM_LEVELS = 3            # levels past max_depth the beam may add


@dataclass
class CoreStats:
    expanded: int = 0
    generated: int = 0
    states: int = 0
    images: int = 0
    computed: int = 0  # image ops run (each cached as a child: a lower bound, pruned last steps run again are not)
    sized: int = 0
    pruned: int = 0
    max_depth_reached: int = 0
    stopped: str = ""
    stretched: bool = False  # the last level ran past the deadline, to the stretch, to be exhausted
    seconds: float = 0.0
    depth_seconds: dict = field(default_factory=dict)  # depth -> seconds when it was exhausted


def core_ops(colours: list[int]) -> list[tuple[Op, ...]]:
    """The ops the core enumerates, each as the steps it takes: every grid -> grid search op whose
    primitive has a kernel, then every split kernel op followed by every join kernel op
    (grouped by split, so each split runs once per image and state); cheapest first, so that of
    two programs that make the same images the cheaper one is kept."""
    ops = sorted((op for op in search_ops(colours) if op.prim.kernel is not None), key=lambda op: op.prim.cost)
    grid = [(op,) for op in ops if kernels.kind(op.prim.name) == "grid"]
    splits = [op for op in ops if kernels.kind(op.prim.name) == "split"]
    joins = [op for op in ops if kernels.kind(op.prim.name) == "join"]
    return grid + [(sp, jn) for sp in splits for jn in joins]


FINISHERS = ("crop_content", "compress", "trim")  # free of depth after a last step too big for the outputs


def finishing_ops() -> list[tuple[Op, ...]]:
    """The finishing steps: crops that take a last step's too-big images down to the outputs'
    shape at no depth cost (as the reference's embedding and cropping to the predicted size)."""
    ops = {op.prim.name: op for op in search_ops([]) if op.prim.name in FINISHERS and not op.args}
    return [(ops[name],) for name in FINISHERS]


class CoreSearch:
    def __init__(self, demo_inputs, demo_outputs, test_inputs, deadline: float, max_depth: int = 3,
                 max_bytes: int = MAX_BYTES, finish: bool = False, prune: bool = True, stretch: float | None = None,
                 beam: int = 0, beam_levels: int = BEAM_LEVELS, tables: kernels.Tables | None = None):
        self.n_demo = len(demo_inputs)
        self.outputs = [np.ascontiguousarray(o, dtype=np.uint8) for o in demo_outputs]
        self.inputs = [np.ascontiguousarray(g, dtype=np.uint8) for g in list(demo_inputs) + list(test_inputs)]
        self.deadline = deadline
        # a later deadline the last level may run to, once, when at `deadline` the pace of that
        # level says it will be exhausted by then
        self.stretch = stretch
        self.max_depth = max_depth
        self.max_bytes = max_bytes
        self.prune = prune  # last steps no better than their state on the first demo stop there
        self.beam = beam    # past max_depth, with time left: the best this many states of the last level, again
        self.beam_levels = beam_levels
        colours = sorted({int(c) for g in self.inputs for c in np.unique(g)} - {0})
        self.tables = tables or kernels.tables()
        known = self.tables.where  # the ops of the kernels the tables hold (all of them, but for `compile_core`)
        self.ops = [steps for steps in core_ops(colours) if all(op.prim.name in known for op in steps)]
        self.n_main = len(self.ops)  # the enumerated ops; then the finishing steps
        if finish:
            self.ops += [steps for steps in finishing_ops() if steps[0].prim.name in known]
        self.stats = CoreStats()
        self._op_arrays()
        n_in = len(self.inputs)
        self.meta = np.zeros(E.META, dtype=np.int64)
        self._alloc_images(1 << 12, 1 << 20)
        self._alloc_children(1 << 14)
        self._alloc_states(1 << 12, n_in)
        self.out_ids = np.array([self._intern(o) for o in self.outputs], dtype=np.int32)
        self.levels: list[tuple[int, int]] = []  # per depth: the state ids [first, last)

    # ----- arrays -----
    def _op_arrays(self) -> None:
        where = self.tables.where
        splits = list(dict.fromkeys(steps[0] for steps in self.ops if len(steps) == 2))
        split_id = {op: j for j, op in enumerate(splits)}

        def args(op):
            return [encode(a) for a in op.args] + [0, 0]

        last = [steps[-1] for steps in self.ops]  # the grid step, or the join
        self.op_arity = np.array([where[op.prim.name][1] for op in last], dtype=np.int64)
        self.op_index = np.array([where[op.prim.name][2] for op in last], dtype=np.int64)
        self.op_a = np.array([args(op)[0] for op in last], dtype=np.int64)
        self.op_b = np.array([args(op)[1] for op in last], dtype=np.int64)
        self.op_first = np.array([steps[0].prim.first for steps in self.ops], dtype=np.bool_)
        self.op_shape = np.array([SHAPE_CODE[steps[0].prim.shape] if len(steps) == 1 else 0 for steps in self.ops],
                                 dtype=np.int64)
        self.op_split = np.array([split_id[steps[0]] if len(steps) == 2 else -1 for steps in self.ops],
                                 dtype=np.int64)
        self.op_steps = np.array([len(steps) for steps in self.ops], dtype=np.int64)
        self.op_cost = np.array([sum(op.prim.cost for op in steps) for steps in self.ops], dtype=np.float64)
        self.sp_arity = np.array([where[op.prim.name][1] for op in splits] or [0], dtype=np.int64)
        self.sp_index = np.array([where[op.prim.name][2] for op in splits] or [0], dtype=np.int64)
        self.sp_a = np.array([args(op)[0] for op in splits] or [0], dtype=np.int64)
        self.sp_b = np.array([args(op)[1] for op in splits] or [0], dtype=np.int64)

    def _alloc_images(self, n: int, cells: int) -> None:
        self.bank = np.zeros(cells, dtype=np.uint8)
        self.img_off = np.zeros(n, dtype=np.int64)
        self.img_h = np.zeros(n, dtype=np.int64)
        self.img_w = np.zeros(n, dtype=np.int64)
        self.img_hash = np.zeros(n, dtype=np.uint64)
        self.img_tab = np.full(2 * n, E.EMPTY, dtype=np.int64)

    def _alloc_children(self, n: int) -> None:
        self.ch_key = np.full(n, E.EMPTY, dtype=np.int64)
        self.ch_val = np.zeros(n, dtype=np.int32)

    def _alloc_states(self, n: int, n_in: int) -> None:
        self.st_nodes = np.zeros((n, n_in), dtype=np.int32)
        self.st_parent = np.zeros(n, dtype=np.int32)
        self.st_op = np.zeros(n, dtype=np.int32)
        self.st_depth = np.zeros(n, dtype=np.int8)
        self.st_cost = np.zeros(n, dtype=np.float64)
        self.st_flags = np.zeros(n, dtype=np.uint8)
        self.st_score = np.zeros(n, dtype=np.int64)
        self.st_tab = np.full(2 * n, E.EMPTY, dtype=np.int64)

    @staticmethod
    def _grown(a: np.ndarray, n: int) -> np.ndarray:
        out = np.zeros((n,) + a.shape[1:], dtype=a.dtype)
        out[: len(a)] = a
        return out

    def nbytes(self) -> int:
        arrays = (self.bank, self.img_off, self.img_h, self.img_w, self.img_hash, self.img_tab, self.ch_key,
                  self.ch_val, self.st_nodes, self.st_parent, self.st_op, self.st_depth, self.st_cost, self.st_flags,
                  self.st_score, self.st_tab)
        return sum(a.nbytes for a in arrays)

    def _room(self) -> tuple[int, int, int, int]:
        """Room to leave the compiled call: capacities, with the load factors of the hash tables."""
        return (len(self.st_nodes), len(self.img_off), len(self.bank), len(self.ch_key) // 2)

    def _grow(self) -> bool:
        """Enlarge whatever is nearly full; False when that would pass the memory cap."""
        m = self.meta
        states, imgs, cells = E.room_needed(self.n_main, len(self.ops), len(self.inputs))
        need_states = m[E.N_STATES] + states
        need_imgs = m[E.N_IMG] + imgs
        need_cells = m[E.BANK_USED] + cells
        need_children = m[E.CHILDREN] + imgs
        plan = []
        if need_states > len(self.st_nodes):
            plan.append("states")
        if need_imgs > len(self.img_off):
            plan.append("images")
        if need_cells > len(self.bank):
            plan.append("bank")
        if need_children > len(self.ch_key) // 2:
            plan.append("children")
        extra = 0
        for p in plan:
            extra += {"states": self.st_nodes.nbytes + self.st_tab.nbytes * 2 + len(self.st_nodes) * 30,
                      "images": self.img_off.nbytes * 4 + self.img_tab.nbytes * 2,
                      "bank": max(len(self.bank), need_cells - len(self.bank)) * self.bank.itemsize,
                      "children": self.ch_key.nbytes + self.ch_val.nbytes}[p]
        if self.nbytes() + extra > self.max_bytes:
            return False
        if "states" in plan:
            n = 2 * len(self.st_nodes)
            for name in ("st_nodes", "st_parent", "st_op", "st_depth", "st_cost", "st_flags", "st_score"):
                setattr(self, name, self._grown(getattr(self, name), n))
            self.st_tab = np.full(2 * n, E.EMPTY, dtype=np.int64)
            E.rehash_states(self.st_nodes, int(m[E.N_STATES]), self.st_tab)
        if "images" in plan:
            self._grow_images()
        if "bank" in plan:
            self.bank = self._grown(self.bank, max(2 * len(self.bank), need_cells))
        if "children" in plan:
            old_key, old_val = self.ch_key, self.ch_val
            self._alloc_children(2 * len(old_key))
            E.rehash_children(old_key, old_val, self.ch_key, self.ch_val)
        return True

    def _grow_images(self) -> None:
        """Twice the room for images, their table rebuilt."""
        n = 2 * len(self.img_off)
        for name in ("img_off", "img_h", "img_w", "img_hash"):
            setattr(self, name, self._grown(getattr(self, name), n))
        self.img_tab = np.full(2 * n, E.EMPTY, dtype=np.int64)
        E.rehash_images(self.img_hash, int(self.meta[E.N_IMG]), self.img_tab)

    def _intern(self, g: np.ndarray) -> int:
        while self.meta[E.N_IMG] + 1 > len(self.img_off) or self.meta[E.BANK_USED] + g.size > len(self.bank):
            self._grow_images()
            self.bank = self._grown(self.bank, 2 * len(self.bank) + g.size)
        return int(E.intern(g, self.bank, self.img_off, self.img_h, self.img_w, self.img_hash, self.img_tab,
                            self.meta))

    # ----- the search -----
    def run(self) -> CoreStats:
        start = time.monotonic()
        row = np.array([self._intern(g) for g in self.inputs], dtype=np.int32)
        E.add_root(row, self.n_demo, self.out_ids, self.bank, self.img_off, self.img_h, self.img_w, self.st_nodes,
                   self.st_parent, self.st_op, self.st_depth, self.st_cost, self.st_flags, self.st_score, self.st_tab,
                   self.meta)
        self.levels = [(0, 1)]
        for depth in range(self.max_depth):
            first, last = self.levels[depth]
            # the level's states, cheapest program first: a search the clock stops has tried those
            todo = (first + np.argsort(self.st_cost[first:last], kind="stable")).astype(np.int64)
            self.stats.stopped = self._level(todo, depth, self.max_depth)
            if self.stats.stopped:
                break
            self.stats.depth_seconds[depth + 1] = round(time.monotonic() - start, 3)
        else:
            self.stats.stopped = "exhausted"
            self._beam_levels(start)
        m = self.meta
        self.stats.generated = int(m[E.GENERATED])
        self.stats.states = int(m[E.N_STATES])
        self.stats.images = int(m[E.N_IMG])
        self.stats.computed = int(m[E.CHILDREN])
        self.stats.sized = int(m[E.SIZED_SEEN])
        self.stats.pruned = int(m[E.PRUNED])
        self.stats.seconds = round(time.monotonic() - start, 3)
        return self.stats

    def _level(self, todo: np.ndarray, depth: int, max_depth: int) -> str:
        """Expand the states `todo` (of depth `depth`) into a new level, until done (""), the
        deadline ("time", the stretch aside) or the memory cap ("memory")."""
        new_first = int(self.meta[E.N_STATES])
        s = 0
        last = len(todo)
        batch = 8
        level_start = time.monotonic()
        stopped = ""
        while s < last:
            now = time.monotonic()
            if now > self.deadline and not self._stretch(depth, now - level_start, s, last, now):
                stopped = "time"
                break
            t0 = now
            nxt = self._expand(todo, s, min(last, s + batch), new_first, max_depth)
            if nxt < min(last, s + batch) and not self._grow():
                stopped = "memory"
                break
            self.stats.expanded += nxt - s
            s = nxt
            took = time.monotonic() - t0
            batch = max(1, min(4096, int(batch * (CHUNK_S / took if took > 1e-4 else 4))))
        self.levels.append((new_first, int(self.meta[E.N_STATES])))
        if self.meta[E.N_STATES] > new_first:
            self.stats.max_depth_reached = max(self.stats.max_depth_reached,
                                               int(self.st_depth[new_first:int(self.meta[E.N_STATES])].max()))
        return stopped

    def _beam_levels(self, start: float) -> None:
        """With max_depth exhausted, no exact program and time left: one step more on the `beam`
        sized states of the last level with the most demo cells right, kept only where the step
        gives the outputs' shape and (the prune) gets more of the first demo right; then again
        on the best of those, up to `beam_levels` levels. A greedy climb past the depth, where
        each step mends more of the demos; what it stops is still "exhausted" (max_depth was)."""
        if not self.beam:
            return
        for extra in range(self.beam_levels):
            if time.monotonic() > self.deadline or len(self._with(E.EXACT)):
                return
            first, last = self.levels[-1]
            ids = np.arange(first, last)
            ids = ids[(self.st_flags[first:last] & E.SIZED) != 0]
            if not len(ids):
                return
            order = np.lexsort((self.st_cost[ids], -self.st_score[ids]))[:self.beam]
            depth = self.max_depth + extra
            if self._level(ids[order].astype(np.int64), depth, depth + 1):
                return
            self.stats.depth_seconds[depth + 1] = round(time.monotonic() - start, 3)

    def _stretch(self, depth: int, spent: float, done: int, todo: int, now: float) -> bool:
        """At the deadline, in the level that makes depth + 1: whether to run on to the stretch,
        as the last level's pace (seconds per state expanded so far, with a margin) says it will
        be exhausted by then. Once: the deadline moves to the stretch, which is then final."""
        if self.stretch is None or self.stretch <= self.deadline or depth + 1 != self.max_depth or done == 0:
            return False
        need = STRETCH_MARGIN * spent / done * (todo - done)
        if now + need > self.stretch:
            return False
        self.deadline, self.stretch = self.stretch, None
        self.stats.stretched = True
        return True

    def _expand(self, todo: np.ndarray, first: int, last: int, level_first: int, max_depth: int) -> int:
        room = self._room()
        t = self.tables
        return int(E.expand(todo, first, last, level_first, max_depth, self.n_demo, self.out_ids, self.n_main,
                            self.prune,
                            *t.grid, *t.split, *t.join,
                            self.op_arity, self.op_index, self.op_a, self.op_b, self.op_first, self.op_shape,
                            self.op_split, self.op_steps, self.op_cost,
                            self.sp_arity, self.sp_index, self.sp_a, self.sp_b,
                            self.bank, self.img_off, self.img_h, self.img_w, self.img_hash, self.img_tab,
                            self.ch_key, self.ch_val,
                            self.st_nodes, self.st_parent, self.st_op, self.st_depth, self.st_cost, self.st_flags,
                            self.st_score,
                            self.st_tab, self.meta, *room))

    # ----- reading the results -----
    def n_states(self) -> int:
        return int(self.meta[E.N_STATES])

    def image(self, i: int) -> np.ndarray:
        off, h, w = int(self.img_off[i]), int(self.img_h[i]), int(self.img_w[i])
        return self.bank[off:off + h * w].reshape(h, w).copy()

    def grids(self, s: int) -> list[np.ndarray]:
        """State s's image on every input (demos, then tests)."""
        return [self.image(int(i)) for i in self.st_nodes[s]]

    def steps(self, s: int) -> list[Op]:
        chain = []
        while self.st_parent[s] >= 0 and s != 0:
            chain.extend(self.ops[int(self.st_op[s])][::-1])
            s = int(self.st_parent[s])
        return chain[::-1]

    def cost(self, s: int) -> float:
        return float(self.st_cost[s])

    def climbed(self, s):
        """Whether the climb past max_depth reached state `s` (`_beam_levels`); for an array of
        states, an array of those answers."""
        return self.st_depth[s] > self.max_depth

    def node(self, s: int) -> Node:
        n = INPUT
        for op in self.steps(s):
            n = call(op.prim.name, n, args=op.args)
        return n

    def _with(self, flag: int) -> np.ndarray:
        n = self.n_states()
        return np.nonzero(self.st_flags[:n] & flag)[0]

    def exact(self) -> list[int]:
        """States that reproduce every demo output, cheapest first."""
        return sorted((int(s) for s in self._with(E.EXACT)), key=lambda s: (self.cost(s), s))

    def sized(self, limit: int | None = None, climbed: bool | None = None) -> list[int]:
        """States with the outputs' shapes (exact ones too: they score highest), most cells right
        first; with `climbed`, only those the climb past max_depth reached (True) or not (False)."""
        n = self.n_states()
        ids = np.nonzero(self.st_flags[:n] & E.SIZED)[0]
        if climbed is not None:
            ids = ids[self.climbed(ids) == climbed]
        order = np.lexsort((self.st_depth[ids], -self.st_score[ids]))
        ids = ids[order]
        return [int(s) for s in (ids if limit is None else ids[:limit])]

    def resizing(self, limit: int) -> list[int]:
        """The cheapest kept states whose demo images are not all the outputs' shapes."""
        n = self.n_states()
        ids = np.nonzero((self.st_flags[:n] & E.SIZED) == 0)[0]
        return sorted((int(s) for s in ids), key=lambda s: (self.cost(s), s))[:limit]

    def recolourable(self) -> list[int]:
        """Sized states that one colour map over every demo turns into the outputs."""
        n = self.n_states()
        ids = np.nonzero((self.st_flags[:n] & E.RECOLOUR) & ~(self.st_flags[:n] & E.EXACT))[0]
        return sorted((int(s) for s in ids), key=lambda s: (self.cost(s), s))




MAX_EXACT = 8        # exact programs kept (the cheapest, distinct on the tests)
TOP_SIZED = 60       # sized states the learned endings are fitted on: most cells right first
TOP_CLIMBED = 20     # and those of the climb past the depth (which would crowd the others out)
TOP_RECOLOUR = 40    # and the cheapest of those one colour map finishes
TOP_RESIZING = 60    # and the cheapest states of other shapes (layouts, windows, picks)
MAX_POOL = 3000      # sized states handed on as pieces and guesses, most cells right first


def results(core: CoreSearch, deadline: float) -> tuple[list, list]:
    """What the core found, as the Python search's types: candidates (exact programs, then the
    learned endings of `shared.solvers.dsl.fitters` on the top states, fitted until `deadline`)
    and the pool of sized states (pieces, guesses)."""
    n = core.n_demo
    out, seen = [], set()

    def offer(c: Candidate) -> None:
        if all(p is not None and p.max() < MARKER for p in c.preds):
            key = tuple(p.tobytes() + bytes(p.shape) for p in c.preds)
            if key not in seen:
                seen.add(key)
                out.append(c)

    for s in core.exact():
        if len(out) >= MAX_EXACT:
            break
        offer(Candidate(core.node(s), "exact", core.cost(s), core.grids(s)[n:], n))
    ctx = FitContext.start(deadline)
    tops = list(dict.fromkeys(core.sized(TOP_SIZED, climbed=False) + core.recolourable()[:TOP_RECOLOUR] +
                              core.resizing(TOP_RESIZING) + core.sized(TOP_CLIMBED, climbed=True)))
    for s in tops:
        if time.monotonic() > deadline:
            break
        grids = core.grids(s)
        for f in fit_state(ctx, GRID, grids[:n], grids[n:], core.outputs, core.cost(s)):
            node = core.node(s)
            for name, args in f.steps:
                node = call(name, node, args=args)
            # a learned ending on a greedily climbed state is the weakest evidence of a program
            offer(Candidate(node, f.kind, f.cost, f.preds, f.explained, climbed=bool(core.climbed(s))))
    pool = []
    for s in core.sized(MAX_POOL):
        grids = core.grids(s)
        pool.append(Sized(s, core.cost(s), grids[:n], grids[n:], origin=core))
    return out, pool


_warm = False


def _tiny(tables: kernels.Tables | None = None) -> CoreSearch:
    """A two-input search on 2x2 grids, run to depth 2, with its growing and rehashing done once
    too: every compiled function of the core called."""
    g = np.array([[1, 0], [0, 2]], dtype=np.uint8)
    cs = CoreSearch([g], [g[::-1].copy()], [g], time.monotonic() + 600, max_depth=2, tables=tables)
    cs.run()
    E.room_needed(cs.n_main, len(cs.ops), len(cs.inputs))
    E.rehash_states(cs.st_nodes, int(cs.meta[E.N_STATES]), np.full_like(cs.st_tab, E.EMPTY))
    E.rehash_images(cs.img_hash, int(cs.meta[E.N_IMG]), np.full_like(cs.img_tab, E.EMPTY))
    E.rehash_children(cs.ch_key, cs.ch_val, np.full_like(cs.ch_key, E.EMPTY), np.zeros_like(cs.ch_val))
    return cs


def compile_core() -> None:
    """Compile the core into the cache against stub tables of the kernels' types, so that on a
    cold cache it compiles beside the kernels (a job of their parallel compile), not after them."""
    _tiny(kernels.stub_tables())


def warm() -> float:
    """Compile (or load from the cache) the core and every kernel, once per process; the seconds it took."""
    global _warm
    if _warm:
        return 0.0
    t0 = time.monotonic()
    with jit.compiling():  # a second process on a cold cache waits, then loads
        kernels.tables(first=(f"{__name__}:compile_core",))
        _tiny()
    _warm = True
    return time.monotonic() - t0
