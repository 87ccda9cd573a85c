/* The game clock on the page (controller/table/timer.py): both sides' remaining time, big,
   the running one counting down between updates. The state's ``clock`` gives the seconds
   left at ``at`` (the server's wall clock, seconds); the page counts from when the state
   arrived, less the part of the trip the two clocks agree on (at most 2 s). */
(function () {
  "use strict";
  var clock = null, arrived = 0, late = 0;

  function mmss(seconds) {
    var whole = Math.max(0, Math.ceil(Math.max(seconds, 0)));
    var h = Math.floor(whole / 3600), m = Math.floor(whole / 60) % 60, s = whole % 60;
    var ss = (s < 10 ? "0" : "") + s;
    return h ? h + ":" + (m < 10 ? "0" : "") + m + ":" + ss : m + ":" + ss;
  }

  function left(side) {
    var base = side === "w" ? clock.white : clock.black;
    if (clock.running !== side) { return base; }
    return base - late - (performance.now() - arrived) / 1000;
  }

  function draw() {
    var box = document.getElementById("clocks");
    if (!box) { return; }
    box.hidden = !clock;
    if (!clock) { return; }
    ["w", "b"].forEach(function (side) {
      var el = document.getElementById("clock-" + side);
      var seconds = left(side);
      var text = mmss(seconds);
      if (el.textContent !== text) { el.textContent = text; }
      var holder = el.parentNode;
      holder.classList.toggle("running", clock.running === side);
      holder.classList.toggle("low", seconds <= (clock.low || 60));
      holder.classList.toggle("flag", clock.flag === side);
      holder.setAttribute("data-left", String(Math.max(0, Math.round(seconds * 10) / 10)));
    });
  }

  /* the ``clock`` button (switch = "button" in [clock]): in the paired page's controls
     (app.js posts /api/control/clock), while the game goes on; lit while the side that
     acted still has to press it */
  function button(s) {
    var press = document.getElementById("clock-press");
    if (!press) { return; }
    press.hidden = !(clock && clock.switch === "button" && !clock.flag &&
      !clock.result && s && s.phase !== "over");
    press.classList.toggle("owed", !!(clock && clock.owed));
    press.setAttribute("data-owed", clock && clock.owed ? clock.owed : "");
  }

  function take(s) {
    clock = s && s.clock ? s.clock : null;
    arrived = performance.now();
    late = clock ? Math.max(0, Math.min(2, Date.now() / 1000 - clock.at)) : 0;
    draw();
    button(s);
  }

  if (window.dvonn && window.dvonn.onRender) {
    window.dvonn.onRender(take);
    if (window.dvonn.state) { take(window.dvonn.state); }
  }
  setInterval(function () { if (clock && clock.running) { draw(); } }, 200);
})();
