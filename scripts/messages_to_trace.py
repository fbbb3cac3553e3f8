#!/usr/bin/python3
"""Message trace -> nwnsim packet trace (docs/WORKLOADS.md).

    scripts/messages_to_trace.py messages.txt > packets.trace
    scripts/messages_to_trace.py --data-bytes 64 --flit-bytes 16 messages.txt packets.trace

Input: one message per line, `cycle source destination bytes` ('#' comments,
blank lines allowed, cycles non-decreasing). Each message becomes packets of
one header flit plus up to --data-bytes of data in --flit-bytes flits, all
created at the message's cycle, as the NWN paper cut its NPB traces (a header
flit and 64 B of data: 1 + 4 flits of 16 B = 128 bits). A message of 0 bytes
is one header-only packet. The output is checked again by nwnsim when it is
run.
"""
import argparse
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("messages")
    ap.add_argument("output", nargs="?", help="packet trace (default: stdout)")
    ap.add_argument("--data-bytes", type=int, default=64, help="data bytes per packet (default 64)")
    ap.add_argument("--flit-bytes", type=int, default=16, help="bytes per flit (default 16 = 128 bits)")
    ap.add_argument("--header-flits", type=int, default=1, help="header flits per packet (default 1)")
    a = ap.parse_args()
    if a.data_bytes < 1 or a.flit_bytes < 1 or a.header_flits < 0:
        sys.exit("messages_to_trace: --data-bytes and --flit-bytes must be >= 1, --header-flits >= 0")
    out = open(a.output, "w") if a.output else sys.stdout
    out.write(f"# nwnsim packet trace from {a.messages}: {a.header_flits} header flit(s) + up to "
              f"{a.data_bytes} B of data in {a.flit_bytes} B flits per packet\n"
              "# cycle source destination size_flits\n")
    last = 0
    packets = 0
    for n, line in enumerate(open(a.messages), 1):
        text = line.split("#", 1)[0].split()
        if not text:
            continue
        if len(text) != 4:
            sys.exit(f"{a.messages}:{n}: {len(text)} fields: a message line is 'cycle source destination bytes'")
        try:
            cycle, src, dst, size = (int(x) for x in text)
        except ValueError:
            sys.exit(f"{a.messages}:{n}: '{line.strip()}': the four fields must be integers")
        if min(cycle, src, dst, size) < 0:
            sys.exit(f"{a.messages}:{n}: '{line.strip()}': the fields must be >= 0")
        if cycle < last:
            sys.exit(f"{a.messages}:{n}: cycle {cycle} is before the previous line's {last}")
        last = cycle
        remaining = size
        while True:
            data = min(remaining, a.data_bytes)
            flits = a.header_flits + -(-data // a.flit_bytes)
            out.write(f"{cycle} {src} {dst} {max(flits, 1)}\n")
            packets += 1
            remaining -= data
            if remaining <= 0:
                break
    if a.output:
        out.close()
    print(f"messages_to_trace: {packets} packets", file=sys.stderr)


if __name__ == "__main__":
    main()
