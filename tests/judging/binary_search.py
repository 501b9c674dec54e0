"""A solution to guess_interactor.cpp's game: binary search over [1, 10^9]."""

lo, hi = 1, 10**9
while True:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    reply = input()
    if reply == "=":
        print("!", mid, flush=True)
        break
    lo, hi = (lo, mid - 1) if reply == "<" else (mid + 1, hi)
