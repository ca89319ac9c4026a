# Run by MicroPython (test_protocol_micropython.py): the shared protocol
# module, loaded from the path given, encodes the messages of
# protocol_messages.py (beside this file) and decodes the frames given on
# stdin; prints one result a line.
import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, __file__.rsplit("/", 1)[0])
import protocol as P  # noqa: E402
from protocol_messages import messages  # noqa: E402

print("file", P.__file__)
print("crc", P.crc16(b"123456789"))
msgs = messages(P)
for kind, seq, payload in msgs:
    wire = P.encode(kind, seq, payload)
    print("enc", "".join(f"{b:02x}" for b in wire))
d = P.Deframer()
data = sys.stdin.buffer.read()
for kind, seq, payload in d.feed(data):
    print("dec", kind, seq, "".join(f"{b:02x}" for b in payload))
print("errors", d.crc_errors, d.cobs_errors, d.oversize, d.short)
print("config", P.parse_config(msgs[6][2], 49)[:5])
