"""A fake ``rp2``: the ``asm_pio`` assembler DSL, PIO constants and a StateMachine.

``asm_pio`` runs the decorated function with the PIO instruction names in scope, as MicroPython
does, and records a ``Program``. ``StateMachine.put`` stores the words written to the TX FIFO;
``StateMachine.simulate`` runs the recorded program (out/jmp/nop/set with side-set, delays,
autopull and wrap) over those words and returns the side-set pin waveform, so a test can check
the bit timing a real RP2040 would produce.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from typing import Any

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

    def __init__(self, id: int) -> None:
        self.id = id


class Instr:
    """One PIO instruction; ``.side(v)`` and ``[delay]`` modify it in place, as in MicroPython."""

    def __init__(self, op: str, args: tuple[Any, ...]) -> None:
        self.op = op
        self.args = args
        self.sideset: int | None = None
        self.delay = 0

    def side(self, value: int) -> Instr:
        self.sideset = value
        return self

    def __getitem__(self, delay: int) -> Instr:
        if not 0 <= delay <= 31:
            raise ValueError(f"PIO delay {delay} out of range 0..31")
        self.delay = delay
        return self

    def __repr__(self) -> str:
        return f"{self.op}{self.args} side={self.sideset} [{self.delay}]"


class Program:
    """What ``asm_pio`` assembled: instructions, labels, wrap points and the decorator options."""

    def __init__(self, name: str, options: dict[str, Any]) -> None:
        self.name = name
        self.options = options
        self.instrs: list[Instr] = []
        self.labels: dict[str, int] = {}
        self.wrap_target = 0
        self.wrap: int | None = None


def asm_pio(**options: Any) -> Callable[[Callable[[], None]], Program]:
    """Decorator: assemble a PIO program written in MicroPython's PIO DSL."""

    def decorate(func: Callable[[], None]) -> Program:
        prog = Program(func.__name__, options)

        def emit(op: str) -> Callable[..., Instr]:
            def make(*args: Any) -> Instr:
                ins = Instr(op, args)
                prog.instrs.append(ins)
                return ins

            return make

        def label(name: str) -> None:
            prog.labels[name] = len(prog.instrs)

        def wrap_target() -> None:
            prog.wrap_target = len(prog.instrs)

        def wrap() -> None:
            prog.wrap = len(prog.instrs) - 1

        scope: dict[str, Any] = dict(func.__globals__)
        scope.update(
            label=label, wrap_target=wrap_target, wrap=wrap,
            out=emit("out"), jmp=emit("jmp"), nop=emit("nop"), set=emit("set"),
            mov=emit("mov"), pull=emit("pull"), push=emit("push"), in_=emit("in"),
            irq=emit("irq"), wait=emit("wait"),
            x="x", y="y", pins="pins", isr="isr", osr="osr", null="null", pindirs="pindirs",
            not_x="!x", not_y="!y", x_dec="x--", y_dec="y--", not_osre="!osre",
            block=True, noblock=False,
        )
        types.FunctionType(func.__code__, scope)()
        if len(prog.instrs) > 32:
            raise ValueError("PIO program longer than 32 instructions")
        return prog

    return decorate


class StateMachine:
    """``StateMachine(id, program, freq=..., sideset_base=Pin)``; records FIFO writes."""

    def __init__(self, id: int, program: Program | None = None, freq: int = -1,
                 **kwargs: Any) -> None:
        self.id = id
        self.program = program
        self.freq = freq
        self.kwargs = kwargs
        self.running = False
        self.fifo: list[int] = []
        self.puts = 0

    def init(self, program: Program, freq: int = -1, **kwargs: Any) -> None:
        self.program = program
        self.freq = freq
        self.kwargs = kwargs

    def active(self, value: int | None = None) -> bool | None:
        if value is None:
            return self.running
        self.running = bool(value)
        return None

    def put(self, value: int | Iterable[int], shift: int = 0) -> None:
        """Queue words (each shifted left by ``shift``), like the real TX FIFO."""
        words = [value] if isinstance(value, int) else list(value)
        self.fifo.extend(((w << shift) & MASK32) for w in words)
        self.puts += 1

    def tx_fifo(self) -> int:
        return len(self.fifo)

    def take(self) -> list[int]:
        """The words queued so far (as the PIO would consume them); empties the FIFO."""
        words, self.fifo = self.fifo, []
        return words

    def simulate(self, words: list[int], max_cycles: int = 1_000_000) -> list[tuple[int, int]]:
        """Run the program over ``words``; the side-set pin as [(level, cycles), ...]."""
        prog = self.program
        if prog is None:
            raise ValueError("state machine has no program")
        opts = prog.options
        thresh = int(opts.get("pull_thresh", 32))
        autopull = bool(opts.get("autopull", False))
        left = opts.get("out_shiftdir", PIO.SHIFT_LEFT) == PIO.SHIFT_LEFT
        fifo = list(words)
        osr, shifted = 0, 32
        regs = {"x": 0, "y": 0}
        pin, pc, cycles = 0, 0, 0
        wave: list[tuple[int, int]] = []

        def hold(level: int, n: int) -> None:
            if wave and wave[-1][0] == level:
                wave[-1] = (level, wave[-1][1] + n)
            else:
                wave.append((level, n))

        while cycles < max_cycles:
            ins = prog.instrs[pc]
            if ins.sideset is not None:
                pin = ins.sideset
            nxt = pc + 1
            if ins.op == "out":
                dest, n = ins.args
                if autopull and shifted >= thresh:
                    if not fifo:
                        break  # stalls here with the side-set level held: the frame is done
                    osr, shifted = fifo.pop(0), 0
                if left:
                    val = osr >> (32 - n)
                    osr = (osr << n) & MASK32
                else:
                    val = osr & ((1 << n) - 1)
                    osr >>= n
                shifted += n
                if dest in regs:
                    regs[dest] = val
            elif ins.op == "jmp":
                cond, target = (None, ins.args[0]) if len(ins.args) == 1 else ins.args
                take = (cond is None or (cond == "!x" and regs["x"] == 0)
                        or (cond == "!y" and regs["y"] == 0))
                if take:
                    nxt = prog.labels[target]
            elif ins.op == "set":
                dest, val = ins.args
                if dest in regs:
                    regs[dest] = val
            elif ins.op != "nop":
                raise NotImplementedError(f"fake PIO does not simulate {ins.op!r}")
            hold(pin, 1 + ins.delay)
            cycles += 1 + ins.delay
            if prog.wrap is not None and pc == prog.wrap and nxt == pc + 1:
                nxt = prog.wrap_target
            pc = nxt % len(prog.instrs)
        return wave
