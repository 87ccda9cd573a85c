"""WS2812 LEDs driven by an RP2040 PIO state machine (the standard ws2812 program).

The host sends LED frames as GRB bytes in chain order; ``show`` pushes one 24-bit word per LED
into the state machine's FIFO, left-aligned (shifted up by 8) as the program shifts MSB first.
At 8 MHz a bit takes 10 cycles (1.25 us): a 1 is high for 7 cycles, a 0 for 2.
"""

import array

import rp2


@rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT, autopull=True,
             pull_thresh=24)
def ws2812():
    T1 = 2
    T2 = 5
    T3 = 3
    wrap_target()  # noqa: F821 - names supplied by rp2.asm_pio
    label("bitloop")  # noqa: F821
    out(x, 1).side(0)[T3 - 1]  # noqa: F821
    jmp(not_x, "do_zero").side(1)[T1 - 1]  # noqa: F821
    jmp("bitloop").side(1)[T2 - 1]  # noqa: F821
    label("do_zero")  # noqa: F821
    nop().side(0)[T2 - 1]  # noqa: F821
    wrap()  # noqa: F821


PIO_FREQ = 8000000
NUM_LEDS = 49


class Leds:
    """``count`` WS2812 LEDs on ``pin`` through PIO state machine ``sm_id``."""

    def __init__(self, pin, count=NUM_LEDS, sm_id=0, rp2_module=None):
        r = rp2_module or rp2
        self.count = count
        self.sm = r.StateMachine(sm_id, ws2812, freq=PIO_FREQ, sideset_base=pin)
        self.sm.active(1)
        self.words = array.array("I", [0] * count)
        self.last = bytes(3 * count)
        self.frames = 0

    def show(self, grb):
        """Show one frame of ``3 * count`` GRB bytes; raises ValueError on another length."""
        if len(grb) != 3 * self.count:
            raise ValueError(f"LED frame must be {3 * self.count} bytes, got {len(grb)}")
        w = self.words
        for i in range(self.count):
            j = 3 * i
            w[i] = (grb[j] << 16) | (grb[j + 1] << 8) | grb[j + 2]
        self.sm.put(w, 8)
        self.last = bytes(grb)
        self.frames += 1

    def off(self):
        self.show(bytes(3 * self.count))
