"""The compiled enumeration: one image bank, a child cache, and program states as node tuples.

Every distinct image any input reaches is stored once in a packed bank (`bank`, with offset,
height, width and a 64-bit hash per image); two images are merged only after a full compare.
The child cache maps (image, op) to the image the op makes of it, or to "does not apply", so an
image met by many programs is transformed once per op. A program state is the tuple of its
image ids over every input of the task (demo inputs, then test inputs), deduplicated by content
and kept at its shallowest depth (the enumeration goes level by level).

Each new state is checked at once against the demo outputs, interned in the same bank: exact
(every demo image is its output's id), sized (every demo image has its output's shape), the
cells already right, and whether one colour map turns it into the outputs. The Python driver
(`shared.solvers.dsl.core.search`) owns the arrays, grows them between calls, watches the clock
and reads the results. Functions here run compiled by numba, or as plain Python without it.
"""

from __future__ import annotations

import warnings

import numpy as np

from shared.solvers.dsl import jit
from shared.solvers.dsl.jit import njit

if not jit.COMPILED:  # as plain Python, numpy warns when the hashes below wrap past 64 bits, which they mean to
    warnings.filterwarnings("ignore", message="overflow encountered in scalar (multiply|add)", category=RuntimeWarning,
                            module=__name__.replace(".", r"\."))

MAX_SIDE = 60
EMPTY = -1          # a free slot of a hash table
NOT_APPLICABLE = -2  # a cached child: the op does not apply to this image
LEAF_PRUNED = -3     # a cached child of the first demo's image, not kept: as a last step it is no
                     # better than its parent (the prune); computed again wherever it is needed

# flags of a state
SIZED = 1      # every demo image has its output's shape
EXACT = 2      # every demo image is its output
RECOLOUR = 4   # sized, and one colour map (over every demo) turns it into the outputs

# meta: counters shared by the driver and the kernels
N_IMG, BANK_USED, N_STATES, CHILDREN, GENERATED, SIZED_SEEN, REOPENED, PRUNED = range(8)
META = 8


@njit
def image_hash(g):
    """FNV-1a over the cells, seeded with the shape."""
    h = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    rows, cols = g.shape
    h = (h ^ np.uint64(rows)) * prime
    h = (h ^ np.uint64(cols + 64)) * prime
    for y in range(rows):
        for x in range(cols):
            h = (h ^ np.uint64(g[y, x])) * prime
    return h


@njit
def view(bank, img_off, img_h, img_w, i):
    """Image i of the bank as a 2-D array (a view, not a copy)."""
    off = img_off[i]
    return bank[off:off + img_h[i] * img_w[i]].reshape((img_h[i], img_w[i]))


@njit
def _same(bank, off, g):
    rows, cols = g.shape
    k = off
    for y in range(rows):
        for x in range(cols):
            if bank[k] != g[y, x]:
                return False
            k += 1
    return True


@njit
def intern(g, bank, img_off, img_h, img_w, img_hash, img_tab, meta):
    """The id of image g in the bank, adding it when it is new (the caller left room)."""
    hv = image_hash(g)
    mask = len(img_tab) - 1
    slot = np.int64(hv & np.uint64(mask))
    rows, cols = g.shape
    while True:
        i = img_tab[slot]
        if i == EMPTY:
            break
        if img_hash[i] == hv and img_h[i] == rows and img_w[i] == cols and _same(bank, img_off[i], g):
            return i
        slot = (slot + 1) & mask
    i = meta[N_IMG]
    off = meta[BANK_USED]
    k = off
    for y in range(rows):
        for x in range(cols):
            bank[k] = g[y, x]
            k += 1
    img_off[i] = off
    img_h[i] = rows
    img_w[i] = cols
    img_hash[i] = hv
    img_tab[slot] = i
    meta[N_IMG] = i + 1
    meta[BANK_USED] = k
    return i


@njit
def rehash_images(img_hash, n, img_tab):
    """Rebuild the image table (after the driver enlarged it)."""
    img_tab[:] = EMPTY
    mask = len(img_tab) - 1
    for i in range(n):
        slot = np.int64(img_hash[i] & np.uint64(mask))
        while img_tab[slot] != EMPTY:
            slot = (slot + 1) & mask
        img_tab[slot] = i


@njit
def _child_slot(ch_key, key):
    mask = len(ch_key) - 1
    slot = (key * np.int64(0x9E3779B1)) & mask
    while ch_key[slot] != EMPTY and ch_key[slot] != key:
        slot = (slot + 1) & mask
    return slot


@njit
def rehash_children(old_key, old_val, ch_key, ch_val):
    ch_key[:] = EMPTY
    for j in range(len(old_key)):
        if old_key[j] != EMPTY:
            slot = _child_slot(ch_key, old_key[j])
            ch_key[slot] = old_key[j]
            ch_val[slot] = old_val[j]


@njit
def _tuple_hash(row):
    h = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    for v in row:
        h = (h ^ np.uint64(v)) * prime
    return h


@njit
def _state_slot(st_nodes, st_tab, row):
    """The slot of `row` in the state table: where it is, or the free slot it would take."""
    mask = len(st_tab) - 1
    slot = np.int64(_tuple_hash(row) & np.uint64(mask))
    n = len(row)
    while True:
        s = st_tab[slot]
        if s == EMPTY:
            return slot
        same = True
        for i in range(n):
            if st_nodes[s, i] != row[i]:
                same = False
                break
        if same:
            return slot
        slot = (slot + 1) & mask


@njit
def rehash_states(st_nodes, n, st_tab):
    st_tab[:] = EMPTY
    for s in range(n):
        slot = _state_slot(st_nodes, st_tab, st_nodes[s])
        st_tab[slot] = s


@njit
def _judge(row, n_demo, out_ids, bank, img_off, img_h, img_w):
    """(flags, cells right) of a state against the demo outputs."""
    exact = True
    for i in range(n_demo):
        if row[i] != out_ids[i]:
            exact = False
            break
    if exact:
        total = 0
        for i in range(n_demo):
            total += img_h[row[i]] * img_w[row[i]]
        return SIZED | EXACT, total
    for i in range(n_demo):
        a, o = row[i], out_ids[i]
        if img_h[a] != img_h[o] or img_w[a] != img_w[o]:
            return 0, 0
    right = 0
    cmap = np.full(256, -1, dtype=np.int64)  # one colour map over every demo
    consistent = True
    for i in range(n_demo):
        r, consistent = _right(bank, img_off, img_h, img_w, row[i], out_ids[i], cmap, consistent)
        right += r
    flags = SIZED
    if consistent:
        flags |= RECOLOUR
    return flags, right


@njit
def _right(bank, img_off, img_h, img_w, a, o, cmap, consistent):
    """(cells of image a equal to image o's, whether the colour map `cmap` (-1: not yet mapped)
    still turns everything into its image): images of the same shape; cmap is extended."""
    pa = img_off[a]
    return _right_cells(bank[pa:pa + img_h[a] * img_w[a]], bank, img_off[o], cmap, consistent)


@njit
def _right_cells(cells, bank, po, cmap, consistent):
    """`_right` for an image given by its cells in reading order (not in the bank), against the
    bank's image at offset po."""
    right = 0
    for k in range(len(cells)):
        va = cells[k]
        vo = bank[po + k]
        if va == vo:
            right += 1
        if consistent:
            if cmap[va] == -1:
                cmap[va] = vo
            elif cmap[va] != vo:
                consistent = False
    return right, consistent


@njit
def _base(a, o, bank, img_off, img_h, img_w, cmap):
    """Cells of image a right against image o (0 when their shapes differ): a state's score on
    the first demo, which its last steps must beat."""
    if img_h[a] != img_h[o] or img_w[a] != img_w[o]:
        return 0
    right, _ = _right(bank, img_off, img_h, img_w, a, o, cmap, False)
    return right


@njit
def room_needed(n_main, n_ops, n_in):
    """The most (states, images, bank cells) one state's expansion adds; children as images:
    each op's state and, after a last step, each finishing step's."""
    per = n_main * (1 + n_ops - n_main)
    return per, per * n_in, per * n_in * MAX_SIDE * MAX_SIDE


@njit
def _child(k, i, node, n_ops, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
           op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
           sp_buf, sp_meta, sp_of, sp_node,
           bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta):
    """The image op k makes of image `node` (input i's), or NOT_APPLICABLE: from the child cache,
    or computed, interned and cached. A split's parts are kept per input (sp_*), so the joins
    after one split reuse them."""
    key = np.int64(node) * n_ops + k
    slot = _child_slot(ch_key, key)
    if ch_key[slot] == key and ch_val[slot] != LEAF_PRUNED:
        return ch_val[slot]
    return _new_child(k, i, node, key, slot, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
                      op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
                      sp_buf, sp_meta, sp_of, sp_node,
                      bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta)


@njit
def _new_child(k, i, node, key, slot, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
               op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
               sp_buf, sp_meta, sp_of, sp_node,
               bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta):
    """Op k's image of image `node`, computed, interned and cached at the child table's `slot`."""
    out = _compute(k, i, node, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
                   op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
                   sp_buf, sp_meta, sp_of, sp_node, bank, img_off, img_h, img_w)
    return _keep_child(out, key, slot, bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta)


@njit
def _keep_child(out, key, slot, bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta):
    """Image `out` interned and cached as the child at `slot` (NOT_APPLICABLE when empty or too big)."""
    rows, cols = out.shape
    if rows == 0 or cols == 0 or rows > MAX_SIDE or cols > MAX_SIDE:
        child = NOT_APPLICABLE
    else:
        child = intern(out, bank, img_off, img_h, img_w, img_hash, img_tab, meta)
    if ch_key[slot] != key:
        meta[CHILDREN] += 1
    ch_key[slot] = key
    ch_val[slot] = child
    return child


@njit
def _compute(k, i, node, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
             op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
             sp_buf, sp_meta, sp_of, sp_node, bank, img_off, img_h, img_w):
    """Op k's image of image `node` (input i's), not interned. A split's parts are kept per
    input (sp_*), so the joins after one split reuse them."""
    g = view(bank, img_off, img_h, img_w, node)
    j = op_split[k]
    if j < 0:
        if op_arity[k] == 0:
            out = fns0[op_index[k]](g)
        elif op_arity[k] == 1:
            out = fns1[op_index[k]](g, op_a[k])
        else:
            out = fns2[op_index[k]](g, op_a[k], op_b[k])
    else:
        if sp_of[i] != j or sp_node[i] != node:
            if sp_arity[j] == 0:
                buf, parts = sp0[sp_index[j]](g)
            elif sp_arity[j] == 1:
                buf, parts = sp1[sp_index[j]](g, sp_a[j])
            else:
                buf, parts = sp2[sp_index[j]](g, sp_a[j], sp_b[j])
            sp_buf[i] = buf
            sp_meta[i] = parts
            sp_of[i] = j
            sp_node[i] = node
        if sp_meta[i].shape[0] == 0:
            out = np.zeros((0, 0), dtype=np.uint8)
        else:
            out = jn0[op_index[k]](sp_buf[i], sp_meta[i])
    return out


@njit
def _put(row, s, k, nd, cost, level_first, n_demo, out_ids, bank, img_off, img_h, img_w,
         st_nodes, st_parent, st_op, st_depth, st_cost, st_flags, st_score, st_tab, meta, leaf):
    """Keep the state `row`, made by op k from state s: a new state's id; an existing one's id
    (taking this program when it is shallower or cheaper and its level is still being built);
    -1 for a last step that cannot be an answer (checked, not kept)."""
    slot = _state_slot(st_nodes, st_tab, row)
    t = st_tab[slot]
    if t != EMPTY:
        if t >= level_first and (st_depth[t] > nd or st_depth[t] == nd and st_cost[t] > cost):
            st_parent[t] = s  # found again, shallower or cheaper, before its level is expanded
            st_op[t] = k
            st_depth[t] = nd
            st_cost[t] = cost
        return t
    flags, right = _judge(row, n_demo, out_ids, bank, img_off, img_h, img_w)
    if leaf and not flags & SIZED:
        return -1
    t = meta[N_STATES]
    for j in range(row.shape[0]):  # not st_nodes[t] = row: that links numba's shape-error message code in
        st_nodes[t, j] = row[j]
    st_parent[t] = s
    st_op[t] = k
    st_depth[t] = nd
    st_cost[t] = cost
    st_flags[t] = flags
    st_score[t] = right
    st_tab[slot] = t
    meta[N_STATES] = t + 1
    if flags & SIZED:
        meta[SIZED_SEEN] += 1
    return t


@njit
def expand(todo, first, last, level_first, max_depth, n_demo, out_ids, n_main, prune,
           fns0, fns1, fns2, sp0, sp1, sp2, jn0,
           op_arity, op_index, op_a, op_b, op_first, op_shape, op_split, op_steps, op_cost,
           sp_arity, sp_index, sp_a, sp_b,
           bank, img_off, img_h, img_w, img_hash, img_tab,
           ch_key, ch_val,
           st_nodes, st_parent, st_op, st_depth, st_cost, st_flags, st_score, st_tab,
           meta, room_states, room_images, room_cells, room_children):
    """Expand states todo[first] .. todo[last - 1] by every op; return the index in todo of the
    next state to expand (== last when done). Stops early, before running out of the room the
    driver left. New states are numbered from meta[N_STATES]; those from `level_first` on belong
    to the level being built, and one found again by a shallower or cheaper program takes that
    program (st_cost: the summed cost of its steps).

    Ops 0 .. n_main - 1 are enumerated. Op k is a grid step (op_split[k] < 0): kernel
    `fns<arity>[op_index[k]]` with parameters op_a[k], op_b[k]; or a split followed by a join
    (op_split[k] = j >= 0): split op j (kernel `sp<sp_arity[j]>[sp_index[j]]` with sp_a[j],
    sp_b[j]) into parts, then join `jn0[op_index[k]]` of them into one image. A step costs
    op_steps[k] of the depth (a split and its join two): a state's depth is st_depth, and no
    program goes past max_depth.

    Ops from n_main on are finishing steps (grid steps, crops), free of depth: a last step that
    misses the first demo output's shape is tried with each, and one that then gives every demo
    its output's shape is kept, the last step's own images as its parent.

    With `prune`, a last step whose image of the first demo is not its output, has no more cells
    right than the state it came from and no colour map to it, stops there: the other inputs
    are not run (it could only be a weaker guess than its parent)."""
    n_ops = len(op_arity)
    n_in = st_nodes.shape[1]
    row = np.empty(n_in, dtype=np.int32)
    fin = np.empty(n_in, dtype=np.int32)
    cmap = np.full(256, -1, dtype=np.int64)
    # the parts of the split last made of each input's image (ops come grouped by split)
    sp_buf = [np.zeros(0, dtype=np.uint8) for _ in range(n_in)]
    sp_meta = [np.zeros((0, 3), dtype=np.int64) for _ in range(n_in)]
    sp_of = np.full(n_in, -1, dtype=np.int64)
    sp_node = np.full(n_in, -1, dtype=np.int64)
    need_states, need_images, need_cells = room_needed(n_main, n_ops, n_in)
    idx = first
    while idx < last:
        s = todo[idx]
        if meta[N_STATES] + need_states > room_states or meta[N_IMG] + need_images > room_images or \
                meta[BANK_USED] + need_cells > room_cells or meta[CHILDREN] + need_images > room_children:
            return idx
        sized = st_flags[s] & SIZED
        depth = st_depth[s]
        base = -1  # cells of the first demo the state has right, once needed
        for k in range(n_main):
            nd = depth + op_steps[k]
            if nd > max_depth or (op_first[k] and depth > 0):
                continue
            leaf = nd == max_depth
            # a last step must be able to give the outputs' size: "keep" needs a sized state,
            # "change" (never the same shape) an unsized one
            if leaf and ((op_shape[k] == 1 and not sized) or (op_shape[k] == 2 and sized)):
                continue
            ok = True
            finish = False
            for i in range(n_in):
                node = st_nodes[s, i]
                key = np.int64(node) * n_ops + k
                slot = _child_slot(ch_key, key)
                check = leaf and prune and i == 0  # the first demo's image of a last step, judged
                if ch_key[slot] == key:  # the hot path, inline: most children are met before
                    child = ch_val[slot]
                    if child == LEAF_PRUNED:
                        if check:
                            ok = False
                            meta[PRUNED] += 1
                            break
                        child = _new_child(k, i, node, key, slot, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
                                           op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a,
                                           sp_b, sp_buf, sp_meta, sp_of, sp_node,
                                           bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta)
                elif check:
                    # judged before it is kept: most last steps are pruned, and those are never interned
                    out = _compute(k, i, node, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
                                   op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
                                   sp_buf, sp_meta, sp_of, sp_node, bank, img_off, img_h, img_w)
                    o = out_ids[0]
                    if out.shape[0] == img_h[o] and out.shape[1] == img_w[o]:
                        if base < 0:
                            base = _base(st_nodes[s, 0], o, bank, img_off, img_h, img_w, cmap)
                        cmap[:] = -1
                        right, consistent = _right_cells(out.reshape(-1), bank, img_off[o], cmap, True)
                        if right <= base and not consistent:
                            ch_key[slot] = key
                            ch_val[slot] = LEAF_PRUNED
                            meta[CHILDREN] += 1
                            ok = False
                            meta[PRUNED] += 1
                            break
                        check = False  # judged: not pruned
                    child = _keep_child(out, key, slot, bank, img_off, img_h, img_w, img_hash, img_tab, ch_key,
                                        ch_val, meta)
                else:
                    child = _new_child(k, i, node, key, slot, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
                                       op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
                                       sp_buf, sp_meta, sp_of, sp_node,
                                       bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta)
                if child < 0:
                    ok = False
                    break
                if leaf and i < n_demo and (img_h[child] != img_h[out_ids[i]] or img_w[child] != img_w[out_ids[i]]):
                    ok = False  # a last step off the outputs' shape on one demo: no answer, stop here
                    finish = i == 0 and n_ops > n_main and img_h[child] >= img_h[out_ids[0]] and \
                        img_w[child] >= img_w[out_ids[0]]
                    break
                if check and child != out_ids[0]:
                    if base < 0:
                        base = _base(st_nodes[s, 0], out_ids[0], bank, img_off, img_h, img_w, cmap)
                    cmap[:] = -1
                    right, consistent = _right(bank, img_off, img_h, img_w, child, out_ids[0], cmap, True)
                    if right <= base and not consistent:
                        ok = False
                        meta[PRUNED] += 1
                        break
                row[i] = child
            if ok:
                meta[GENERATED] += 1
                _put(row, s, k, nd, st_cost[s] + op_cost[k], level_first, n_demo, out_ids, bank, img_off, img_h,
                     img_w, st_nodes, st_parent, st_op, st_depth, st_cost, st_flags, st_score, st_tab, meta, leaf)
                continue
            if not finish:
                continue
            # the last step missed the first demo's shape by being too big: try the finishing steps
            c0 = _child(k, 0, st_nodes[s, 0], n_ops, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
                        op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
                        sp_buf, sp_meta, sp_of, sp_node,
                        bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta)
            have_row = False
            for f in range(n_main, n_ops):
                d0 = _child(f, 0, c0, n_ops, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
                            op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
                            sp_buf, sp_meta, sp_of, sp_node,
                            bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta)
                if d0 < 0 or img_h[d0] != img_h[out_ids[0]] or img_w[d0] != img_w[out_ids[0]]:
                    continue
                if not have_row:  # the last step's images on every input, once
                    for i in range(n_in):
                        child = _child(k, i, st_nodes[s, i], n_ops, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
                                       op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
                                       sp_buf, sp_meta, sp_of, sp_node,
                                       bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta)
                        if child < 0:
                            break
                        row[i] = child
                    else:
                        have_row = True
                    if not have_row:
                        break
                done = True
                for i in range(n_in):
                    child = _child(f, i, row[i], n_ops, fns0, fns1, fns2, sp0, sp1, sp2, jn0,
                                   op_arity, op_index, op_a, op_b, op_split, sp_arity, sp_index, sp_a, sp_b,
                                   sp_buf, sp_meta, sp_of, sp_node,
                                   bank, img_off, img_h, img_w, img_hash, img_tab, ch_key, ch_val, meta)
                    if child < 0 or i < n_demo and (img_h[child] != img_h[out_ids[i]] or
                                                    img_w[child] != img_w[out_ids[i]]):
                        done = False
                        break
                    fin[i] = child
                if not done:
                    continue
                meta[GENERATED] += 1
                mid = _put(row, s, k, nd, st_cost[s] + op_cost[k], level_first, n_demo, out_ids, bank, img_off,
                           img_h, img_w, st_nodes, st_parent, st_op, st_depth, st_cost, st_flags, st_score, st_tab,
                           meta, False)
                meta[GENERATED] += 1
                _put(fin, mid, f, nd, st_cost[mid] + op_cost[f], level_first, n_demo, out_ids, bank, img_off, img_h,
                     img_w, st_nodes, st_parent, st_op, st_depth, st_cost, st_flags, st_score, st_tab, meta, True)
        idx += 1
    return idx


@njit
def add_root(row, n_demo, out_ids, bank, img_off, img_h, img_w,
             st_nodes, st_parent, st_op, st_depth, st_cost, st_flags, st_score, st_tab, meta):
    """The inputs themselves: state 0."""
    return _put(row, -1, -1, 0, 0.0, 0, n_demo, out_ids, bank, img_off, img_h, img_w,
                st_nodes, st_parent, st_op, st_depth, st_cost, st_flags, st_score, st_tab, meta, False)
