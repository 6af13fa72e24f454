#!/usr/bin/env python3
"""A picture of physical memory: the page-owner map as a PNG.

Reads /proc/mmlab/page_owner_map (mm/page_owner_map.h: a text header, then
one byte per page frame of each node), either a saved copy of the file or
a serial log in which the kernel printed it run-length encoded between
"memmap: begin" and "memmap: end" lines (the command-line word
page_owner_map; make memmap). Draws each node as rows of pixels, one
pixel per cell of pages coloured by the most common owner among them
(free pages by the order of their buddy block), with a legend and each
node's totals; prints the totals, and where the log has them the kernel's
own counters beside them.

Only the Python standard library: the PNG is written with zlib, the text
with a 5x7 bitmap font of its own.

usage: memmap.py INPUT [-o OUT.png] [--out-dir DIR]
  INPUT      a serial log, or a copy of the file
  -o         where to write the last map of the input (default memmap.png)
  --out-dir  write every map of the log there, memmap-<n>-<title>.png
"""
import argparse
import os
import re
import struct
import sys
import zlib

FREE = 32
MAX_ORDER = 18

# Colours of the owner classes (by the names the file's header gives).
COLOURS = {
    "hole": (24, 24, 24),
    "reserved": (150, 150, 150),
    "kernel_image": (200, 40, 200),
    "memblock": (130, 60, 160),
    "bad": (255, 0, 0),
    "free_pcp": (170, 255, 120),
    "slab": (240, 200, 0),
    "page_table": (0, 210, 230),
    "vmalloc": (40, 90, 255),
    "anon": (230, 50, 40),
    "thp": (150, 20, 20),
    "hugetlb": (255, 140, 0),
    "hugetlb_free": (255, 200, 130),
    "large_kmalloc": (190, 150, 60),
    "kernel": (235, 235, 235),
    "page_cache": (120, 200, 160),
}


def free_colour(order):
    """Green, dark for a small block, bright for a large one."""
    t = order / MAX_ORDER
    return (int(20 + 30 * t), int(70 + 150 * t), int(30 + 40 * t))


def colour(byte, names):
    name = names.get(byte, "")
    if name.startswith("free_order_"):
        return free_colour(int(name[len("free_order_"):]))
    return COLOURS.get(name, (255, 0, 255))


class MemMap:
    """One map: its classes, its nodes (nid, start_pfn, pages, bytes), its
    title and the kernel's counters printed with it (if any)."""

    def __init__(self, data, title="", kernel_lines=()):
        self.title = title
        self.kernel_lines = list(kernel_lines)
        end = data.find(b"\ndata\n")
        if not data.startswith(b"mmlab page_owner_map 1\n") or end < 0:
            raise ValueError("not a page_owner_map (version 1)")
        self.names = {}
        self.nodes = []
        self.page_size = 4096
        for line in data[:end].decode().splitlines()[1:]:
            f = line.split()
            if f[0] == "page_size":
                self.page_size = int(f[1])
            elif f[0] == "class":
                self.names[int(f[1])] = f[2]
            elif f[0] == "node":
                self.nodes.append([int(f[1]), int(f[3], 0), int(f[5])])
        off = end + len(b"\ndata\n")
        for n in self.nodes:
            n.append(data[off:off + n[2]])
            if len(n[3]) != n[2]:
                raise ValueError("node %d: %d bytes of %d" % (n[0], len(n[3]), n[2]))
            off += n[2]
        if off != len(data):
            raise ValueError("%d bytes after the last node" % (len(data) - off))

    def totals(self, node):
        """{class name: pages} of one node; free orders summed as 'free'."""
        t = {}
        for b in range(256):
            c = node[3].count(bytes([b]))
            if not c:
                continue
            name = self.names.get(b, "unknown_%d" % b)
            if name.startswith("free_order_"):
                name = "free"
            t[name] = t.get(name, 0) + c
        return t

    def mem_total_free(self, node):
        """MemTotal and MemFree (pages) as /sys/.../node<N>/meminfo counts
        them: pages given to the buddy allocator, and those free in it."""
        t = self.totals(node)
        unmanaged = sum(t.get(k, 0) for k in ("hole", "reserved", "kernel_image", "memblock"))
        return node[2] - unmanaged, t.get("free", 0) + t.get("free_pcp", 0)


def decode_rle(lines):
    out = bytearray()
    for line in lines:
        for tok in line.split():
            b, _, n = tok.partition("*")
            out += bytes([int(b, 16)]) * (int(n, 16) if n else 1)
    return bytes(out)


BEGIN = re.compile(r"memmap: begin \S+ \((.*)\): run-length")


def maps_in_log(text):
    """Every map a serial log holds, in order."""
    maps, rle, title, kernel = [], None, None, []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        m = BEGIN.search(line)
        if m:
            rle, title = [], m.group(1)
            continue
        if rle is not None:
            i = line.find("memmap-rle:")
            if i >= 0:
                rle.append(line[i + len("memmap-rle:"):])
            elif "memmap: end" in line:
                maps.append(MemMap(decode_rle(rle), title, kernel))
                rle, kernel = None, []
            continue
        if re.match(r"\s+(node \d+: map MemTotal|all nodes, map / kernel)", line):
            kernel.append(line.strip())
    return maps


def load(path):
    data = open(path, "rb").read()
    if data.startswith(b"mmlab page_owner_map"):
        return [MemMap(data, os.path.basename(path))]
    maps = maps_in_log(data.decode("utf-8", "replace"))
    if not maps:
        raise ValueError("%s: no 'memmap: begin' ... 'memmap: end' block and not a map file" % path)
    return maps


# --- drawing ---------------------------------------------------------------

FONT = {  # 5x7, rows top down, bit 4 leftmost
    "0": "0e11131519110e", "1": "040c040404040e", "2": "0e11010204081f", "3": "1f02040201110e",
    "4": "02060a121f0202", "5": "1f101e0101110e", "6": "0608101e11110e", "7": "1f010204080808",
    "8": "0e11110e11110e", "9": "0e11110f01020c", "A": "0e11111f111111", "B": "1e11111e11111e",
    "C": "0e11101010110e", "D": "1c12111111121c", "E": "1f10101e10101f",
    "F": "1f10101e101010", "G": "0e11101711110f", "H": "1111111f111111",
    "I": "0e04040404040e", "J": "0702020202120c", "K": "11121418141211",
    "L": "1010101010101f", "M": "111b1515111111", "N": "11111915131111", "O": "0e11111111110e",
    "P": "1e11111e101010", "Q": "0e11111115120d", "R": "1e11111e141211",
    "S": "0f10100e01011e", "T": "1f040404040404", "U": "1111111111110e", "V": "11111111110a04",
    "W": "1111111515150a", "X": "11110a040a1111", "Y": "1111110a040404", "Z": "1f01020408101f",
    " ": "00000000000000", ":": "000c0c000c0c00", ".": "00000000000c0c", ",": "000000000c0408",
    "-": "0000001f000000", "_": "0000000000001f", "/": "00010204081000", "(": "02040808080402",
    ")": "08040202020408", "=": "00001f001f0000", "%": "18190204081303", "*": "0004150e150400",
    "+": "0004041f040400", ";": "000c0c000c0408",
}
GLYPH = {c: [int(h[i:i + 2], 16) for i in range(0, 14, 2)] for c, h in FONT.items()}
SCALE = 2
CHAR_W, CHAR_H = 6 * SCALE, 9 * SCALE


class Canvas:
    def __init__(self, w, h, bg=(0, 0, 0)):
        self.w, self.h = w, h
        self.rows = [bytearray(bytes(bg) * w) for _ in range(h)]

    def put(self, x, y, c):
        if 0 <= x < self.w and 0 <= y < self.h:
            self.rows[y][3 * x:3 * x + 3] = bytes(c)

    def rect(self, x, y, w, h, c):
        for yy in range(max(0, y), min(self.h, y + h)):
            x0, x1 = max(0, x), min(self.w, x + w)
            if x1 > x0:
                self.rows[yy][3 * x0:3 * x1] = bytes(c) * (x1 - x0)

    def text(self, x, y, s, c=(230, 230, 230)):
        for ch in s.upper():
            g = GLYPH.get(ch, GLYPH["*"])
            for r, bits in enumerate(g):
                for col in range(5):
                    if bits >> (4 - col) & 1:
                        self.rect(x + col * SCALE, y + r * SCALE, SCALE, SCALE, c)
            x += CHAR_W

    def png(self):
        raw = b"".join(b"\0" + bytes(r) for r in self.rows)

        def chunk(kind, body):
            return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


MAP_W = 512  # pixels a row of the map
MAX_ROWS = 1024  # rows of all nodes' maps together, at most


def mib(pages, page_size):
    return "%.1f" % (pages * page_size / 2**20)


def draw(m):
    """The PNG of map m, and the lines of totals it shows."""
    total = sum(n[2] for n in m.nodes)
    per_px = 1
    while (total + per_px * MAP_W - 1) // (per_px * MAP_W) > MAX_ROWS:
        per_px *= 2
    node_rows = [(n[2] + per_px * MAP_W - 1) // (per_px * MAP_W) for n in m.nodes]
    legend = sorted(b for b in m.names if b < FREE) + [FREE, FREE + 9, FREE + MAX_ORDER]
    text_lines = []
    for n in m.nodes:
        t = m.totals(n)
        mt, mf = m.mem_total_free(n)
        kb = m.page_size // 1024
        text_lines.append("node %d: MemTotal %d kB, MemFree %d kB (as node%d/meminfo)" % (n[0], mt * kb, mf * kb, n[0]))
        text_lines.append("  kB: " + ", ".join("%s %d" % (k, v * kb) for k, v in sorted(t.items())
                                              if k != "hole"))
    top = 3 * CHAR_H
    gap = CHAR_H + 6
    map_h = sum(node_rows) + gap * len(m.nodes)
    side_x = 100 + MAP_W + 30
    side_w = 60 * CHAR_W
    h = top + max(map_h, (len(legend) + 2) * CHAR_H) + (len(text_lines) + 2) * CHAR_H
    cv = Canvas(side_x + side_w, h, (16, 16, 16))
    cv.text(10, 6, "mmlab page owner map: %s" % m.title)
    cv.text(10, 6 + CHAR_H, "one pixel = %d pages (%s KiB), the most common owner; a row = %s MiB"
            % (per_px, per_px * m.page_size // 1024, mib(per_px * MAP_W, m.page_size)))
    y = top
    for n, rows in zip(m.nodes, node_rows):
        nid, start, pages, data = n
        cv.text(10, y, "node %d  start %#x  %s MiB" % (nid, start * m.page_size, mib(pages, m.page_size)))
        y += CHAR_H + 2
        for row in range(rows):
            for px in range(MAP_W):
                i = (row * MAP_W + px) * per_px
                if i >= pages:
                    break
                cell = data[i:i + per_px]
                b = max(set(cell), key=cell.count) if per_px > 1 else cell[0]
                cv.put(100 + px, y + row, colour(b, m.names))
        y += rows + 4
    ly = top
    cv.text(side_x, ly, "legend")
    ly += CHAR_H
    for b in legend:
        cv.rect(side_x, ly + 2, 3 * SCALE * 4, 7 * SCALE - 2, colour(b, m.names))
        name = m.names.get(b, "?")
        if b >= FREE:
            name = "free, block of order %d (%s KiB)" % (b - FREE, (m.page_size << (b - FREE)) // 1024)
        cv.text(side_x + 16 * SCALE, ly, name)
        ly += CHAR_H
    ty = top + max(map_h, (len(legend) + 2) * CHAR_H) + CHAR_H
    width = (cv.w - 20) // CHAR_W
    wrapped = []
    for line in text_lines:
        while len(line) > width:
            cut = line.rfind(", ", 0, width)
            cut = cut + 1 if cut > 0 else width
            wrapped.append(line[:cut])
            line = "      " + line[cut:].lstrip()
        wrapped.append(line)
    cv.h += (len(wrapped) - len(text_lines)) * CHAR_H
    cv.rows += [bytearray(bytes((16, 16, 16)) * cv.w) for _ in range((len(wrapped) - len(text_lines)) * CHAR_H)]
    for line in wrapped:
        cv.text(10, ty, line)
        ty += CHAR_H
    return cv.png(), text_lines


def slug(s):
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-") or "map"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("-o", "--output", default="memmap.png")
    ap.add_argument("--out-dir")
    a = ap.parse_args(argv)
    try:
        maps = load(a.input)
    except (OSError, ValueError) as e:
        print("memmap.py: %s" % e, file=sys.stderr)
        return 1
    outs = []
    if a.out_dir:
        os.makedirs(a.out_dir, exist_ok=True)
        outs = [(m, os.path.join(a.out_dir, "memmap-%d-%s.png" % (i, slug(m.title)))) for i, m in enumerate(maps)]
    else:
        outs = [(maps[-1], a.output)]
    for m, path in outs:
        png, lines = draw(m)
        with open(path, "wb") as f:
            f.write(png)
        print("%s: %s" % (path, m.title))
        for line in lines:
            print("  " + line)
        for line in m.kernel_lines:
            print("  kernel: " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
