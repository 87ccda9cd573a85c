"""A fake ``rp2`` for the firmware on the MicroPython interpreter (the WebAssembly build has none).

``asm_pio`` works the way MicroPython's own does on the chip: the decorated function runs
twice (a pass to find the labels, a pass to encode) with its module's globals swapped for the
PIO names (``out``, ``jmp``, ``x``, ``not_x``, ...), every instruction method returns the
assembler so ``.side(v)`` and ``[delay]`` modify the instruction just emitted, and the result
is the list MicroPython hands to ``StateMachine``: ``[array('H', words), -1, -1, execctrl,
shiftctrl, out_init, set_init, sideset_init]``, with the RP2040's 16-bit instruction words and
its EXECCTRL/SHIFTCTRL bits (RP2040 datasheet, 3.4 and 3.7). So leds.py's program is assembled
by this interpreter into the words a Pico would load (the standard ws2812 program is 0x6221,
0x1123, 0x1400, 0xa442), and ``StateMachine.simulate`` runs those words (out, jmp, mov/nop,
set, side-set, delays, autopull, wrap) into the side-set pin's waveform.
"""

from array import array

MASK32 = 0xFFFFFFFF


class PIO:
    IN_LOW = 0
    IN_HIGH = 1
    OUT_LOW = 2
    OUT_HIGH = 3
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2

    def __init__(self, id):
        self.id = id


class PIOASMError(Exception):
    pass


# Operand encodings (datasheet 3.4): sources/destinations, jmp conditions, push/pull flags.
_NAMES = {
    "pins": 0, "x": 1, "y": 2, "null": 3, "pindirs": 4, "pc": 5, "status": 5, "isr": 6,
    "osr": 7, "exec": 8, "gpio": 0,
    "not_x": 1, "x_dec": 2, "not_y": 3, "y_dec": 4, "x_not_y": 5, "pin": 6, "not_osre": 7,
    "noblock": 0x01, "block": 0x21, "iffull": 0x40, "ifempty": 0x40, "clear": 0x40,
}
_DIRECTIVES = ("wrap_target", "wrap", "label")
_INSTRUCTIONS = ("word", "nop", "jmp", "wait", "in_", "out", "push", "pull", "mov", "irq", "set")


class _Assembler:
    def __init__(self, out_init=None, set_init=None, sideset_init=None, side_pindir=False,
                 in_shiftdir=0, out_shiftdir=0, autopush=False, autopull=False,
                 push_thresh=32, pull_thresh=32, fifo_join=0):
        self.labels = {}
        self.words = array("H")
        self.execctrl = (1 if side_pindir else 0) << 29
        self.shiftctrl = ((fifo_join << 30) | ((pull_thresh & 31) << 25)
                          | ((push_thresh & 31) << 20) | (out_shiftdir << 19)
                          | (in_shiftdir << 18) | ((1 if autopull else 0) << 17)
                          | ((1 if autopush else 0) << 16))
        self.inits = (out_init, set_init, sideset_init)
        if sideset_init is None:
            self.side_bits = 0
        elif isinstance(sideset_init, int):
            self.side_bits = 1
        else:
            self.side_bits = len(sideset_init)
        self.side_total = self.side_bits
        self.side_opt = False
        self.delay_max = 31
        self.wrapped = False
        self.pass_ = 0
        self.count = 0
        self.sided = 0

    def begin(self, pass_):
        if pass_ == 1:
            if not self.wrapped and self.count:
                self.wrap()
            if self.side_bits:
                self.side_opt = self.sided != self.count
                self.side_total = self.side_bits + (1 if self.side_opt else 0)
                if self.side_opt:
                    self.execctrl |= 1 << 30
            self.delay_max = 31 >> self.side_total
        self.pass_ = pass_
        self.count = 0
        self.sided = 0

    def program(self):
        out_init, set_init, sideset_init = self.inits
        return [self.words, -1, -1, self.execctrl, self.shiftctrl, out_init, set_init,
                sideset_init]

    # modifiers of the instruction just emitted
    def __getitem__(self, delay):
        if self.pass_:
            if delay > self.delay_max:
                raise PIOASMError("delay too large")
            self.words[-1] |= delay << 8
        return self

    def side(self, value):
        self.sided += 1
        if self.pass_:
            if not self.side_bits:
                raise PIOASMError("no sideset")
            if value >= 1 << self.side_bits:
                raise PIOASMError("sideset too large")
            bits = (1 << 12 if self.side_opt else 0) | value << (13 - self.side_total)
            self.words[-1] |= bits
        return self

    # directives
    def wrap_target(self):
        self.execctrl |= self.count << 7

    def wrap(self):
        if not self.count:
            raise PIOASMError("wrap before any instruction")
        self.execctrl |= (self.count - 1) << 12
        self.wrapped = True

    def label(self, name):
        if self.pass_ == 0:
            if name in self.labels:
                raise PIOASMError("duplicate label " + name)
            self.labels[name] = self.count

    # instructions
    def word(self, bits, label=None):
        self.count += 1
        if self.pass_:
            target = 0
            if label is not None:
                if label not in self.labels:
                    raise PIOASMError("unknown label " + str(label))
                target = self.labels[label]
            self.words.append(bits | target)
        return self

    def nop(self):
        return self.word(0xA042)  # mov y, y

    def jmp(self, cond, label=None):
        if label is None:
            cond, label = 0, cond
        return self.word(cond << 5, label)

    def wait(self, polarity, src, index):
        src = 1 if src == 6 else (0 if src == 0 else 2)
        return self.word(0x2000 | polarity << 7 | src << 5 | index)

    def in_(self, src, bits):
        if not 0 < bits <= 32:
            raise PIOASMError("invalid bit count")
        return self.word(0x4000 | src << 5 | (bits & 31))

    def out(self, dest, bits):
        if dest == 8:
            dest = 7  # exec
        if not 0 < bits <= 32:
            raise PIOASMError("invalid bit count")
        return self.word(0x6000 | dest << 5 | (bits & 31))

    def push(self, a=0, b=0):
        v = a | b
        if not v & 1:
            v |= 0x20
        return self.word(0x8000 | (v & 0x60))

    def pull(self, a=0, b=0):
        v = a | b
        if not v & 1:
            v |= 0x20
        return self.word(0x8080 | (v & 0x60))

    def mov(self, dest, src):
        if dest == 8:
            dest = 4  # exec
        return self.word(0xA000 | dest << 5 | src)

    def irq(self, mod, index=None):
        if index is None:
            mod, index = 0, mod
        return self.word(0xC000 | (mod & 0x60) | index)

    def set(self, dest, data):
        return self.word(0xE000 | dest << 5 | data)


def asm_pio(**options):
    """Decorator: assemble a function written in MicroPython's PIO DSL, as rp2.asm_pio does."""
    asm = _Assembler(**options)

    def decorate(func):
        gl = func.__globals__
        saved = gl.copy()
        gl.clear()
        gl.update(_NAMES)
        for name in _DIRECTIVES + _INSTRUCTIONS:
            gl[name] = getattr(asm, name)
        try:
            asm.begin(0)
            func()
            asm.begin(1)
            func()
        finally:
            gl.clear()
            gl.update(saved)
        if len(asm.words) > 32:
            raise PIOASMError("program longer than 32 instructions")
        return asm.program()

    return decorate


def _sideset_bits(prog):
    init = prog[7]
    if init is None:
        return 0
    return 1 if isinstance(init, int) else len(init)


class StateMachine:
    """``StateMachine(id, program, freq=..., sideset_base=Pin)``; records FIFO writes."""

    def __init__(self, id, program=None, freq=-1, **kwargs):
        self.id = id
        self.program = program
        self.freq = freq
        self.kwargs = kwargs
        self.running = False
        self.fifo = []
        self.puts = 0

    def init(self, program, freq=-1, **kwargs):
        self.program = program
        self.freq = freq
        self.kwargs = kwargs

    def active(self, value=None):
        if value is None:
            return self.running
        self.running = bool(value)

    def put(self, value, shift=0):
        """Queue words (each shifted left by ``shift``), like the real TX FIFO."""
        if isinstance(value, int):
            value = (value,)
        for w in value:
            self.fifo.append((w << shift) & MASK32)
        self.puts += 1

    def tx_fifo(self):
        return len(self.fifo)

    def take(self):
        words = self.fifo
        self.fifo = []
        return words

    def simulate(self, words, max_cycles=1000000):
        """Run the assembled program over ``words``; the side-set pin as [(level, cycles)]."""
        prog = self.program
        code = prog[0]
        execctrl, shiftctrl = prog[3], prog[4]
        side_en = (execctrl >> 30) & 1
        nside = _sideset_bits(prog)
        total = nside + side_en
        wrap_bottom = (execctrl >> 7) & 31
        wrap_top = (execctrl >> 12) & 31
        autopull = (shiftctrl >> 17) & 1
        right = (shiftctrl >> 19) & 1
        thresh = ((shiftctrl >> 25) & 31) or 32
        fifo = list(words)
        osr, shifted = 0, 32
        x = y = 0
        pin = pc = cycles = 0
        wave = []
        while cycles < max_cycles:
            w = code[pc]
            field = (w >> 8) & 31
            side = field >> (5 - total)
            delay = field & ((1 << (5 - total)) - 1)
            if nside and (not side_en or side >> nside):
                pin = side & ((1 << nside) - 1)
            op = w >> 13
            nxt = pc + 1
            if op == 3:  # out
                dest, n = (w >> 5) & 7, (w & 31) or 32
                if autopull and shifted >= thresh:
                    if not fifo:
                        break  # stalls with the side-set level held: the frame is done
                    osr, shifted = fifo.pop(0), 0
                if right:
                    val = osr & ((1 << n) - 1)
                    osr >>= n
                else:
                    val = osr >> (32 - n)
                    osr = (osr << n) & MASK32
                shifted += n
                if dest == 1:
                    x = val
                elif dest == 2:
                    y = val
            elif op == 0:  # jmp
                cond, target = (w >> 5) & 7, w & 31
                if (cond == 0 or (cond == 1 and x == 0) or (cond == 3 and y == 0)
                        or (cond == 7 and shifted < thresh)):
                    nxt = target
                elif cond not in (1, 3, 7):
                    raise NotImplementedError(f"jmp condition {cond}")
            elif op == 5:  # mov (nop is mov y, y)
                dest, src = (w >> 5) & 7, w & 7
                val = x if src == 1 else y if src == 2 else 0
                if dest == 1:
                    x = val
                elif dest == 2:
                    y = val
            elif op == 7:  # set
                dest, val = (w >> 5) & 7, w & 31
                if dest == 1:
                    x = val
                elif dest == 2:
                    y = val
            else:
                raise NotImplementedError(f"fake PIO does not simulate opcode {op}")
            n = 1 + delay
            if wave and wave[-1][0] == pin:
                wave[-1] = (pin, wave[-1][1] + n)
            else:
                wave.append((pin, n))
            cycles += n
            if pc == wrap_top and nxt == pc + 1:
                nxt = wrap_bottom
            pc = nxt % len(code)
        return wave
