#!/usr/bin/env python3
"""ASTC agreement of pakrat-texture with ARM's astcenc (the reference codec).

    pip install astc-encoder-py            # astcenc 5.x through Python
    cargo build -p pakrat-texture --example astc_blocks
    python3 tools/astc_reference.py [COUNT] [SEED] [BWxBH ...]

For each footprint: COUNT (default 4096) random 16-byte blocks that astcenc
decodes to something else than an error block (all NaN, or all magenta), decoded by
astcenc (LDR profile, 8-bit output) and by `pakrat_texture::decode` (the
example `astc_blocks`). A block agrees when every channel of every pixel is
within 1 (astcenc rounds from 16 bits). Blocks are grouped by partition
count and, for several partitions, by how the colour endpoint modes are
given: one mode for all ("shared"), per partition within one class
("same class"), or per partition across two classes ("mixed class").
"""
import os
import random
import subprocess
import sys
import tempfile

import astc_encoder as astc

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "target", "debug", "examples", "astc_blocks")


def kind(block: bytes) -> str:
    v = int.from_bytes(block, "little")
    if v & 0x1FF == 0x1FC:
        return "void extent"
    parts = ((v >> 11) & 3) + 1
    if parts == 1:
        return "1 partition"
    sel = (v >> 23) & 3
    if sel == 0:
        return f"{parts} partitions, shared mode"
    c = (v >> 25) & ((1 << parts) - 1)
    mixed = c not in (0, (1 << parts) - 1)
    return f"{parts} partitions, {'mixed class' if mixed else 'same class'}"


def astcenc_decode(bw: int, bh: int, blocks: list) -> list:
    """Each block's bw*bh RGBA8 pixels, row-major, from astcenc."""
    cfg = astc.ASTCConfig(astc.ASTCProfile.LDR, bw, bh)
    ctx = astc.ASTCContext(cfg)
    n = len(blocks)
    img = astc.ASTCImage(astc.ASTCType.U8, bw * n, bh)
    ctx.decompress(b"".join(blocks), img, astc.ASTCSwizzle.from_str("rgba"))
    return split(bytes(img.data), bw, bh, n)


def split(px: bytes, bw: int, bh: int, n: int) -> list:
    w = bw * n
    out = []
    for b in range(n):
        rows = [px[(y * w + b * bw) * 4:(y * w + b * bw + bw) * 4] for y in range(bh)]
        out.append(b"".join(rows))
    return out


def pakrat_decode(bw: int, bh: int, blocks: list) -> list:
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "b.bin"), os.path.join(d, "p.rgba")
        with open(src, "wb") as f:
            f.write(b"".join(blocks))
        subprocess.run([EXAMPLE, str(bw), str(bh), src, dst], check=True)
        with open(dst, "rb") as f:
            px = f.read()
    size = bw * bh * 4
    return [px[i * size:(i + 1) * size] for i in range(len(blocks))]


def agree(a: bytes, b: bytes) -> bool:
    return all(abs(x - y) <= 1 for x, y in zip(a, b))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 27
    foot = sys.argv[3:] or ["4x4", "6x6", "8x8", "10x10", "12x12"]
    rng = random.Random(seed)
    for fp in foot:
        bw, bh = map(int, fp.split("x"))
        # astcenc decodes an invalid block to NaN (all ones in 8 bits),
        # astc-decode to magenta: both skipped, only real modes compared.
        error = (bytes([255, 0, 255, 255]) * (bw * bh), bytes([255] * 4 * bw * bh))
        blocks, refs = [], []
        while len(blocks) < count:
            cand = [rng.randbytes(16) for _ in range(4 * count)]
            for b, r in zip(cand, astcenc_decode(bw, bh, cand)):
                if r not in error and len(blocks) < count:
                    blocks.append(b)
                    refs.append(r)
        ours = pakrat_decode(bw, bh, blocks)
        tally = {}
        for b, r, o in zip(blocks, refs, ours):
            t = tally.setdefault(kind(b), [0, 0])
            t[0] += 1
            t[1] += agree(r, o)
        total = sum(t[1] for t in tally.values())
        print(f"{fp}: {total}/{count} blocks agree ({100 * total / count:.1f}%)")
        for k in sorted(tally):
            n, ok = tally[k]
            print(f"  {k:32} {ok:5}/{n:<5} ({100 * ok / n:.1f}%)")


if __name__ == "__main__":
    main()
