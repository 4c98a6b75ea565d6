# engine/tactics/goal.pyx: the capture goal, its move generators and its ko rules (contract in goal.pxd).
from libc.stdint cimport int32_t, uint8_t
from libc.string cimport memset

from engine cimport board
from engine.board cimport EMPTY, LIBS_EXACT, MAX_POINTS, NO_POINT, BoardState, color_t, point_t
from engine.tactics.types cimport (GEN_REGION, V_FALSE, V_TRUE, V_UNKNOWN, CaptureGoal, Komaster)


cdef void set_region(CaptureGoal* g, int margin) noexcept nogil:
    cdef const BoardState* b = &g.root
    cdef int row, col, size = b.size, r0 = size, r1 = -1, c0 = size, c1 = -1
    for row in range(size):
        for col in range(size):
            if b.color[(row + 1) * b.stride + col + 1] != EMPTY:
                r0, r1, c0, c1 = min(r0, row), max(r1, row), min(c0, col), max(c1, col)
    r0, c0 = max(0, r0 - margin), max(0, c0 - margin)
    r1, c1 = min(size - 1, r1 + margin), min(size - 1, c1 + margin)
    g.n_region = 0
    for row in range(r0, r1 + 1):
        for col in range(c0, c1 + 1):
            g.region[g.n_region] = <point_t>((row + 1) * b.stride + col + 1)
            g.n_region += 1


cdef int block_libs(const BoardState* b, point_t gid, point_t* out, uint8_t* seen) noexcept nogil:
    """Every liberty of the block gid (seen: a zeroed MAX_POINTS mask, left marked). Returns the count."""
    cdef int n = 0, k
    cdef point_t s = gid, q
    cdef int d[4]
    board.nbrs4(b.stride, d)
    while s != 0:
        for k in range(4):
            q = s + d[k]
            if b.color[q] == EMPTY and not seen[q]:
                seen[q] = 1
                out[n] = q
                n += 1
        s = b.next_stone[s]
    return n


cdef inline int count_libs(const BoardState* b, point_t gid, int limit) noexcept nogil:
    """Liberties of the block gid, exact below limit (n_libs is exact up to LIBS_EXACT, a bound above)."""
    cdef int n = b.groups[gid].n_libs
    if n <= LIBS_EXACT or n >= limit:
        return n
    return board.exact_libs(b, gid)


cdef int goal_value(const BoardState* b, const CaptureGoal* g) noexcept nogil:
    if b.color[g.goal] == EMPTY:
        return V_TRUE
    if count_libs(b, b.group[g.goal], g.libs_false) >= g.libs_false:
        return V_FALSE
    return V_UNKNOWN


cdef int REACH2_DR[12]
cdef int REACH2_DC[12]
for _k, (_dr, _dc) in enumerate([(0, 1), (0, -1), (1, 0), (-1, 0), (0, 2), (0, -2), (2, 0), (-2, 0),
                                 (1, 1), (1, -1), (-1, 1), (-1, -1)]):
    REACH2_DR[_k] = _dr
    REACH2_DC[_k] = _dc


cdef int SUPERSTRING_LIBS = 3                # GEN_LOCAL: defender blocks next to a goal liberty with at most
                                             # this many liberties join the goal's move set (the defender's:
                                             # one more, as it may fill their outside liberties to win a race)


cdef int atari_neighbour_libs(const BoardState* b, point_t gid, color_t other, point_t skip, point_t* out,
                              uint8_t* seen) noexcept nogil:
    """The liberty of every block of colour `other` in atari next to the block gid (but the block
    `skip`), unseen ones only (marked in seen): captures that save gid. Returns the count."""
    cdef point_t around[MAX_POINTS]
    cdef int i, n = 0, n_around = board.neighbour_blocks(b, gid, other, around)
    cdef point_t og, lib
    for i in range(n_around):
        og = around[i]
        if og != skip and b.groups[og].n_libs == 1:
            lib = b.groups[og].libs[0]
            if not seen[lib]:
                seen[lib] = 1
                out[n] = lib
                n += 1
    return n


cdef int weak_neighbour_libs(const BoardState* b, point_t gid, color_t other, int max_libs, point_t* out,
                             uint8_t* seen) noexcept nogil:
    """The liberties of every block of colour `other` next to the block gid with at most max_libs
    liberties, unseen ones only (points marked 1 in seen, blocks 5): the defender's counter-attacks in
    a capturing race of the goal's superstring. Returns the count."""
    cdef point_t around[MAX_POINTS]
    cdef int i, n = 0, n_around = board.neighbour_blocks(b, gid, other, around)
    cdef point_t og
    for i in range(n_around):
        og = around[i]
        if seen[og] != 2 and seen[og] != 5 and count_libs(b, og, max_libs + 1) <= max_libs:
            seen[og] = 5
            n += block_libs(b, og, out + n, seen)
    return n


cdef int unfillable_libs(const BoardState* b, const point_t* libs, int n_libs, color_t attacker) noexcept nogil:
    """Goal liberties the attacker cannot fill at once: suicide or a self-atari there (a stone the
    defender captures) without capturing. Each costs the attacker a move more in a capturing race."""
    cdef int i, n = 0
    for i in range(n_libs):
        if board.libs_after(b, libs[i], attacker, 2) <= 1:
            n += 1
    return n


cdef int shared_libs(const BoardState* b, point_t og, const point_t* libs, int n_libs) noexcept nogil:
    """Liberties of the goal that are liberties of the block og as well."""
    cdef int i, k, n = 0
    cdef int d[4]
    board.nbrs4(b.stride, d)
    for i in range(n_libs):
        for k in range(4):
            if b.group[libs[i] + d[k]] == og and b.color[libs[i] + d[k]] != EMPTY:
                n += 1
                break
    return n


cdef void sort_points(point_t* a, int n) noexcept nogil:
    cdef int i, j
    cdef point_t x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef int generate(CaptureGoal* g, const BoardState* b, color_t mover, point_t* out) noexcept nogil:
    cdef uint8_t seen[MAX_POINTS]
    cdef point_t libs[MAX_POINTS]
    cdef point_t more[MAX_POINTS]
    cdef int n_libs, n = 0, n_more = 0, i, j, k, lg, sh, ss_libs
    cdef point_t gid = b.group[g.goal], q, p, og
    cdef color_t defender = 3 - g.attacker
    cdef int d[4]
    board.nbrs4(b.stride, d)
    memset(seen, 0, sizeof(seen))
    n_libs = block_libs(b, gid, libs, seen)
    sort_points(libs, n_libs)
    for i in range(n_libs):
        out[n] = libs[i]
        n += 1
    if g.gen == GEN_REGION:
        for i in range(g.n_region):
            p = g.region[i]
            if b.color[p] == EMPTY and not seen[p]:
                out[n] = p
                n += 1
        return n
    # GEN_LOCAL: second-order liberties, then liberties of attacker blocks next to the goal that are
    # no stronger than it (captures and counter-ataris for the defender, backfilling for the attacker);
    # the defender also counter-attacks blocks in a capturing race with it (see lg below)
    for i in range(n_libs):
        for k in range(4):
            q = libs[i] + d[k]
            if b.color[q] == EMPTY and not seen[q]:
                seen[q] = 1
                more[n_more] = q
                n_more += 1
    if mover != g.attacker and g.defender_reach >= 2:
        # every empty point within Manhattan distance 2 of the block (behind attacker stones too)
        p = gid
        while p != 0:
            for k in range(12):
                q = p + REACH2_DR[k] * b.stride + REACH2_DC[k]
                if 0 < q < b.stride * b.stride and b.color[q] == EMPTY and not seen[q]:
                    seen[q] = 1
                    more[n_more] = q
                    n_more += 1
            p = b.next_stone[p]
    # The defender's counter-attacks are a capturing race: it may fill the liberties of an adjacent
    # attacker block whose own liberties (those it does not share with the goal) are no more than the
    # goal's, counting a goal liberty the attacker cannot fill at once as one more (+ counter_slack).
    lg = n_libs
    if mover != g.attacker:
        lg += g.counter_slack + unfillable_libs(b, libs, n_libs, g.attacker)
    p = gid
    while p != 0:
        for k in range(4):
            q = p + d[k]
            if b.color[q] == g.attacker:
                og = b.group[q]
                if seen[og]:
                    continue            # judged already, next to another goal stone
                sh = shared_libs(b, og, libs, n_libs) if mover != g.attacker else 0
                if count_libs(b, og, lg + sh + 1) - sh > lg:
                    seen[og] = 4        # too strong (stone-point marks cannot clash with a liberty's)
                    continue
                seen[og] = 2
                n_more += block_libs(b, og, more + n_more, seen)
                if mover == g.attacker:
                    n_more += atari_neighbour_libs(b, og, defender, gid, more + n_more, seen)
        p = b.next_stone[p]
    # the superstring: weak defender blocks next to a goal liberty (the goal joins them by playing
    # there); their liberties extend the goal (defender) or are filled from behind (attacker). The
    # defender also counter-attacks the attacker blocks next to them that it could outrace (at most lg
    # liberties, as for the blocks next to the goal)
    ss_libs = SUPERSTRING_LIBS + (1 if mover != g.attacker else 0)
    for i in range(n_libs):
        for k in range(4):
            q = libs[i] + d[k]
            if b.color[q] == defender and b.group[q] != gid:
                og = b.group[q]
                if seen[og] != 3 and count_libs(b, og, ss_libs + 1) <= ss_libs:
                    seen[og] = 3
                    n_more += block_libs(b, og, more + n_more, seen)
                    if mover != g.attacker:
                        n_more += weak_neighbour_libs(b, og, g.attacker, lg, more + n_more, seen)
    sort_points(more, n_more)
    for i in range(n_more):
        out[n] = more[i]
        n += 1
    return n


cdef bint captures_ko_stone(const BoardState* b, point_t m, color_t c) noexcept nogil:
    cdef int d[4]
    cdef int k
    cdef point_t q
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = m + d[k]
        if b.color[q] == 3 - c and b.groups[b.group[q]].n_libs == 1 and b.groups[b.group[q]].n_stones == 1:
            return True
    return False


cdef bint goal_ko_capture(const BoardState* b, point_t gid, point_t m, color_t c) noexcept nogil:
    # gid is one stone, and the capturing stone is alone with one liberty (the point of the captured
    # stone) after it
    cdef int d[4]
    cdef int k
    cdef point_t q
    if b.groups[gid].n_stones != 1 or b.groups[gid].n_libs != 1:
        return False
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = m + d[k]
        if b.color[q] == EMPTY or b.color[q] == c:
            return False
        if b.color[q] == 3 - c and b.group[q] != gid and b.groups[b.group[q]].n_libs == 1:
            return False                # captures more than the goal stone
    return True


cdef void replay(CaptureGoal* g, const int32_t* path, int depth, Komaster* k) noexcept nogil:
    cdef BoardState* b = &g.work
    cdef color_t color = g.root.to_play
    cdef point_t m
    cdef bint conditional
    cdef int i
    k.color = EMPTY
    k.point = NO_POINT
    board.copy_state(b, &g.root)
    for i in range(depth - 1, -1, -1):
        m = <point_t>path[i]
        conditional = is_ko_banned(b, m, color)
        board.play(b, m, color)
        if conditional:
            k.color = color
            k.point = b.ko_point
        elif k.color == color and b.color[k.point] != EMPTY:
            k.color = EMPTY             # the komaster filled its ko: it is over
            k.point = NO_POINT
        color = 3 - color


cdef bint may_retake_goal(const CaptureGoal* g, const BoardState* b, color_t mover, const Komaster* k) noexcept nogil:
    return (is_ko_banned(b, g.goal, mover) and mover == g.ko_side and k.color != 3 - mover
            and (k.color != mover or is_diagonal(b, b.last_move, k.point)))
