"""A CPU model of the GPU inflate's parallel rounds (kernels/inflate.cu), for choosing their sizes.

For a raw-deflate stream of dynamic Huffman blocks (zlib -9 of one chunk), it prints:
- how many symbols a decoder started at a random bit needs to fall into step with the true token
  boundaries (median, 90th and 99th percentile; 99 = never, it met an end-of-block or an invalid
  code first);
- for regions of R bits, 32 per round, lists of T tokens and walks of F symbols: the share of a
  round's bits that rounds use on average, and why rounds end (L: last region, X: a walk met
  nothing, E: end of block, F: a full list, B: an invalid code).

Usage: python3 scripts/deflate_sync.py STREAM.z [R T F ...]
       (make STREAM.z with zlib.compressobj(9, zlib.DEFLATED, -15) over one chunk)
Pure Python and slow (about a minute per 128 KiB chunk).
"""
import random
import sys

LE = [0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [0]
DE = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12,
      13, 13]


class Bits:
    def __init__(self, data):
        self.v = int.from_bytes(data, "little")

    def get(self, pos, k):
        return (self.v >> pos) & ((1 << k) - 1)


def build(lens):
    """Canonical code: {(length, code as read bit by bit): symbol}, longest length."""
    count = [0] * 16
    for n in lens:
        if n:
            count[n] += 1
    nxt, code = [0] * 16, 0
    for n in range(1, 16):
        code = (code + count[n - 1]) << 1 if n > 1 else 0
        nxt[n] = code
    table = {}
    for sym, n in enumerate(lens):
        if n:
            c = nxt[n]
            nxt[n] += 1
            table[(n, int(format(c, "0%db" % n)[::-1], 2))] = sym
    return table, max(lens) if lens else 0


def symbol(b, pos, code):
    table, longest = code
    for n in range(1, longest + 1):
        s = table.get((n, b.get(pos, n)))
        if s is not None:
            return s, n
    return None, 0


def token(b, pos, lit, dist, pair=False):
    """(kind, bits): L literal, P two literals, M match, E end of block, B invalid."""
    s, n = symbol(b, pos, lit)
    if s is None:
        return "B", 0
    if s < 256:
        if pair:
            s2, n2 = symbol(b, pos + n, lit)
            if s2 is not None and s2 < 256:
                return "P", n + n2
        return "L", n
    if s == 256:
        return "E", n
    if s - 257 > 28:
        return "B", 0
    n += LE[s - 257]
    d, dn = symbol(b, pos + n, dist)
    if d is None or d > 29:
        return "B", 0
    return "M", n + dn + DE[d]


def blocks(b):
    """Every dynamic block: (first token bit, end bit, tables, true token starts)."""
    pos, out = 0, []
    while True:
        final, kind = b.get(pos, 1), b.get(pos + 1, 2)
        pos += 3
        if kind != 2:
            raise SystemExit("only dynamic Huffman blocks are modelled")
        hlit, hdist, hclen = b.get(pos, 5) + 257, b.get(pos + 5, 5) + 1, b.get(pos + 10, 4) + 4
        pos += 14
        order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        cl = [0] * 19
        for k in range(hclen):
            cl[order[k]] = b.get(pos, 3)
            pos += 3
        cl_code, lens = build(cl), []
        while len(lens) < hlit + hdist:
            s, n = symbol(b, pos, cl_code)
            pos += n
            if s < 16:
                lens.append(s)
            elif s == 16:
                lens += [lens[-1]] * (3 + b.get(pos, 2))
                pos += 2
            elif s == 17:
                lens += [0] * (3 + b.get(pos, 3))
                pos += 3
            else:
                lens += [0] * (11 + b.get(pos, 7))
                pos += 7
        lit, dist = build(lens[:hlit]), build(lens[hlit:])
        start, starts = pos, []
        while True:
            starts.append(pos)
            kind_, n = token(b, pos, lit, dist)
            pos += n
            if kind_ == "E":
                break
        out.append((start, pos, lit, dist, starts))
        if final:
            return out


def sync_stats(b, bl, trials=2000):
    steps = []
    for start, end, lit, dist, starts in bl:
        truth = set(starts)
        for _ in range(trials // len(bl)):
            p, k = random.randrange(start, max(start + 1, end - 2000)), 0
            while p not in truth and k <= 60:
                kind, n = token(b, p, lit, dist)
                if kind in "EB":
                    k = 99
                    break
                p, k = p + n, k + 1
            steps.append(k)
    steps.sort()
    n = len(steps)
    print("symbols to fall into step: median %d, p90 %d, p99 %d"
          % (steps[n // 2], steps[int(n * 0.9)], steps[int(n * 0.99)]))


def rounds(b, bl, R, T, F):
    count = used = 0
    ends = {}
    for start, end, lit, dist, _ in bl:
        P = start
        while P < end:
            count += 1
            marks, lanes = [set() for _ in range(32)], []
            for j in range(32):
                p, kept, state = P + j * R, 0, "C"
                while p < P + (j + 1) * R:
                    if kept == T:
                        state = "F"
                        break
                    kind, n = token(b, p, lit, dist, pair=True)
                    marks[j].add(p)
                    kept, p = kept + 1, p + n
                    if kind in "EB":
                        state = kind
                        break
                lanes.append((state, p))
            c, why, nxt = 31, "L", lanes[31][1]
            for j in range(31):
                state, q = lanes[j]
                if state != "C":
                    c, why, nxt = j, state, q
                    break
                f, met = 0, False
                while q < P + (j + 2) * R and f < F:
                    if q in marks[j + 1]:
                        met = True
                        break
                    kind, n = token(b, q, lit, dist)
                    f, q = f + 1, q + n
                    if kind in "EB":
                        break
                if not met:
                    c, why, nxt = j, "X", q
                    break
            ends[why] = ends.get(why, 0) + 1
            used += min(nxt, end) - P
            if nxt >= end or why == "E":
                break
            P = nxt
    print("R=%d T=%d F=%d: %d rounds, %.0f%% of a round's bits used, ends %s"
          % (R, T, F, count, 100.0 * used / count / (32 * R), ends))


def main():
    if len(sys.argv) < 2 or (len(sys.argv) - 2) % 3:
        raise SystemExit(__doc__)
    random.seed(1)
    b = Bits(open(sys.argv[1], "rb").read())
    bl = blocks(b)
    sync_stats(b, bl)
    args = [int(x) for x in sys.argv[2:]] or [896, 128, 64]
    for i in range(0, len(args), 3):
        rounds(b, bl, *args[i:i + 3])


if __name__ == "__main__":
    main()
