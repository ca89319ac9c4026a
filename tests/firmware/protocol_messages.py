# The fixed set of messages the protocol module encodes in both tests of
# test_protocol_micropython.py: in CPython, and in MicroPython (imported by
# mp_protocol.py, so written in what MicroPython runs). ``P``: the protocol
# module as the interpreter loaded it.


def messages(P):
    return [
        (P.HELLO, 0, P.pack_hello(0x12345678)),
        (P.HELLO_ACK, 0, P.pack_hello_ack(1, 2, 3, 7, 7, 7, 49, 4, (0, 1, 0), "kharbga-pico")),
        (P.OCC, 200, P.pack_occ(0xFFFFFFFF, P.OCC_FULL, (1 << 49) - 1, 49)),
        (P.HEARTBEAT, 0, P.pack_heartbeat(5, 6, 1, 0xABCD, 1 << 24, 49)),
        (P.BUTTON, 255, P.pack_button(1000000, 5, 2)),
        (P.LEDS, 3, P.pack_leds([(i, 0, 255 - i) for i in range(49)])),
        (P.CONFIG, 9, P.pack_config(1000, 3000, 12, 150, 49, list(range(49)), list(range(49)))),
        (P.STATS, 0, P.pack_stats(list(range(10)), list(range(49)))),
        (P.ACK, 7, P.pack_ack(P.LEDS)),
        (P.NOTICE, 0, P.pack_notice(1, "ValueError('x')")),
        (P.OCC, 1, bytes(250)),
    ]
