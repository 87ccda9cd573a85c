"""firmware/leds.py on MicroPython (as tests/firmware/test_leds.py on CPython): the ws2812 PIO
program assembled by this interpreter through the fake rp2 (which swaps the function's
globals like MicroPython's rp2.asm_pio does) into the words a Pico loads, one left-aligned
word per LED, and the waveform those words produce."""

import leds as L
import machine
import rp2
from harness import raises

CYCLE_NS = 1000000000 // L.PIO_FREQ  # 125 ns at 8 MHz

#: pico-examples' ws2812.pio, assembled: the program a Pico runs
WS2812_WORDS = [0x6221, 0x1123, 0x1400, 0xA442]


def decode(wave):
    highs = [n for level, n in wave if level == 1]
    lows = [n for level, n in wave if level == 0]
    bits = [1 if n > 4 else 0 for n in highs]
    out = bytearray()
    for i in range(0, len(bits) - 7, 8):
        b = 0
        for bit in bits[i:i + 8]:
            b = (b << 1) | bit
        out.append(b)
    return bytes(out), highs, lows


def test_the_standard_ws2812_program_assembles_to_the_pico_words():
    prog = L.ws2812
    assert list(prog[0]) == WS2812_WORDS, [hex(w) for w in prog[0]]
    execctrl, shiftctrl = prog[3], prog[4]
    assert (execctrl >> 7) & 31 == 0 and (execctrl >> 12) & 31 == 3  # wrap_target, wrap
    assert not execctrl >> 30  # every instruction has a side-set: no enable bit
    assert (shiftctrl >> 25) & 31 == 24 and (shiftctrl >> 17) & 1  # pull_thresh, autopull
    assert not (shiftctrl >> 19) & 1  # out_shiftdir: left
    assert prog[7] == rp2.PIO.OUT_LOW


def test_the_assembler_restores_the_module_globals():
    assert L.Leds is not None and L.PIO_FREQ == 8000000 and L.rp2 is rp2
    assert "out" not in dir(L) and "not_x" not in dir(L)


def test_show_puts_one_left_aligned_word_per_led():
    strip = L.Leds(machine.Pin(16, machine.Pin.OUT), count=3, rp2_module=rp2)
    assert strip.sm.running and strip.sm.freq == 8000000
    strip.show(bytes([1, 2, 3, 0x10, 0x20, 0x30, 0xFF, 0, 0x80]))
    assert strip.sm.take() == [0x01020300, 0x10203000, 0xFF008000]
    assert strip.last == bytes([1, 2, 3, 0x10, 0x20, 0x30, 0xFF, 0, 0x80])
    assert strip.frames == 1


def test_waveform_has_ws2812_timing_and_carries_the_grb_bytes():
    grb = bytes([0xA5, 0x00, 0xFF, 0x12, 0x34, 0x56])
    strip = L.Leds(machine.Pin(16, machine.Pin.OUT), count=2, rp2_module=rp2)
    strip.show(grb)
    wave = strip.sm.simulate(strip.sm.take())
    data, highs, lows = decode(wave)
    assert data == grb, data
    assert len(highs) == 8 * len(grb)
    assert set(h * CYCLE_NS for h in highs) == {250, 875}
    periods = [highs[i] + lows[i + 1] for i in range(min(len(highs), len(lows) - 1))]
    assert all(p * CYCLE_NS == 1250 for p in periods[:-1])


def test_a_whole_board_frame():
    strip = L.Leds(machine.Pin(16, machine.Pin.OUT), rp2_module=rp2)
    grb = bytes((i * 37) & 0xFF for i in range(147))
    strip.show(grb)
    words = strip.sm.take()
    assert len(words) == 49 and words[48] == (grb[144] << 24 | grb[145] << 16 | grb[146] << 8)
    assert decode(strip.sm.simulate(words, max_cycles=49 * 24 * 10 + 100))[0] == grb


def test_wrong_frame_length_is_refused():
    strip = L.Leds(machine.Pin(16, machine.Pin.OUT), count=49, rp2_module=rp2)
    exc = raises(ValueError, strip.show, b"\x00\x01\x02")
    assert str(exc) == "LED frame must be 147 bytes, got 3", str(exc)
    strip.off()
    assert strip.sm.take()[-49:] == [0] * 49
