"""Hand-drawn positions that tests in more than one module share, in `tests.boards`' notation.

Rows top first, `X` Black, `O` White, `.` empty; read them with `board_from_ascii` (Black to play
unless a test says otherwise). A position used by one test module only stays in that module.
"""

# --- the rules ---

# A ko: Black C3 captures the white stone on B3, and White B3 would take back at once.
KO = """
. . . . .
. X O . .
X O . O .
. X O . .
. . . . .
"""

# --- ladders: the ladder reader's and the move features' ---

# White C3 has two liberties; Black's atari at C4 drives it into a ladder towards the top right,
# unless a white stone stands in the way ({breaker}).
LADDER_C3 = """
. . . . . . . . .
. . . . . . . {breaker} .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . {c4} . . . . . .
. X O . . . . . .
. . X X . . . . .
. . . . . . . . .
"""


def ladder_c3(breaker: bool = False, atari_played: bool = False) -> str:
    return LADDER_C3.format(breaker="O" if breaker else ".", c4="X" if atari_played else ".")


# --- capturing problems on 9x9: the tactical solver's ---

# White D4 has two liberties; Black's atari at D5 starts a ladder that works (it runs to the top edge).
LADDER = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . X O . . . . .
. . . X X . . . .
. . . . . . . . .
. . . . . . . . .
"""

# LADDER's shape two rows higher as a game record, Black to play: White D6, Black C6 D5 E5.
LADDER_SGF = b"(;GM[1]FF[4]SZ[9]AB[cd][de][ee]AW[dd]PL[B])"

# LADDER with a white ladder breaker at G7: the ladder fails and White D4 cannot be captured.
BREAKER = """
. . . . . . . . .
. . . . . . . . .
. . . . . . O . .
. . . . . . . . .
. . . . . . . . .
. . X O . . . . .
. . . X X . . . .
. . . . . . . . .
. . . . . . . . .
"""

# A net (geta): White E4 has two liberties and would escape a ladder, but Black F5 encloses it.
NET = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. O . X . . . O .
. . . X O . . . .
. . O O X X . O .
. . . . . . . . .
. . . . . . . . .
"""

# --- finished games: scoring ---

# Seki on the bottom edge: Black A2 B2 C2 B1 (eye A1) and White D2 E2 F2 D1 F1 (eye E1) share C1;
# neither can fill it without putting itself in atari. The walls above are alive.
SEKI = """
. O O X . X .
O O O X X X X
. O O X . X .
O O O X X X X
O O O X X X X
X X X O O O X
. X . O . O X
"""

# --- move prediction: the fitted priors ---

# White C5 in atari, its liberty D5 (row 4, col 3 from the bottom left, 0-based): Black captures there,
# White connects there.
STONE_IN_ATARI = """
. . . . . . .
. . X O . . .
. X O . O . .
. . X O . . .
. . . X . . .
. . . . . . .
. . . . . . .
"""

# A 15x15 opening with a fight in the bottom left: large enough for the side-extension and
# corner-opening features, with a last move for the playout-policy flags.
OPENING = """
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . O . . . . . . . X . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . X O . . . . . . . O . . .
. X O . . . . . . . . . . . .
. . X . . . . . . . . . . . .
. . . . . . . . . . . . . . .
"""
