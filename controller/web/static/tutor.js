/* The live tutor on the page (controller/players/tutor.py): the state's ``tutor`` gives each
   marked action's mark by its index in ``actions`` (shown after it in the list, "C3D4??"),
   the latest mark with its loss and the better action, and the take-back offer. A paired
   device gets the buttons: the erring side asks to take the action back, a person opponent
   allows or refuses; and the tutor's switch. */
(function () {
  "use strict";
  var dv = window.dvonn;
  if (!dv) { return; }
  var t = dv.t;
  var SIDE = { w: "White", b: "Black" };

  function el(id) { return document.getElementById(id); }

  function mySeat() {
    var info = dv.info || {};
    var seat = { white: "w", black: "b" }[info.seat] || "";
    var sel = el("seat");
    return seat || (sel ? sel.value : "");
  }

  function marks(s) {
    var tutor = s.tutor || {};
    var shown = tutor.on === false ? {} : (tutor.marks || {});
    var items = el("actions").children;
    for (var i = 0; i < items.length; i++) {
      var mark = shown[String(i)] || "";
      if ((items[i].getAttribute("data-mark") || "") !== mark) {
        if (mark) { items[i].setAttribute("data-mark", mark); } else { items[i].removeAttribute("data-mark"); }
      }
    }
  }

  function take(s) {
    var box = el("tutor");
    if (!box) { return; }
    var tutor = s && s.tutor;
    box.hidden = !tutor;
    if (!tutor) { return; }
    marks(s);
    var last = tutor.last;
    var line = "";
    if (tutor.on && last) {
      line = last.best ? t("{text}: {side} loses {loss} pieces; better: {best}",
        { text: last.text, side: t(SIDE[last.side]), loss: last.loss, best: last.best })
        : t("{text}: {side} loses {loss} pieces", { text: last.text, side: t(SIDE[last.side]), loss: last.loss });
    }
    el("tutor-line").textContent = line;
    el("tutor-line").setAttribute("data-mark", last ? last.mark : "");
    var offer = tutor.on ? tutor.offer : null;
    var paired = !!(dv.info && dv.info.paired);
    var seat = mySeat();
    var other = offer ? (offer.side === "w" ? "b" : "w") : "";
    el("tutor-takeback").hidden = !(paired && offer && !offer.asking && (!seat || seat === offer.side));
    el("tutor-allow").hidden = el("tutor-refuse").hidden =
      !(paired && offer && offer.asking && (!seat || seat === other));
    var sw = el("tutor-switch");
    sw.hidden = !paired;
    sw.setAttribute("aria-pressed", tutor.on ? "true" : "false");
    sw.textContent = tutor.on ? t("Tutor on") : t("Tutor off");
  }

  function send(name) {
    dv.post("/api/tutor/" + name + (mySeat() ? "?seat=" + mySeat() : ""));
  }
  ["takeback", "allow", "refuse"].forEach(function (name) {
    var b = el("tutor-" + name);
    if (b) { b.addEventListener("click", function () { send(name); }); }
  });
  var sw = el("tutor-switch");
  if (sw) {
    sw.addEventListener("click", function () {
      send(sw.getAttribute("aria-pressed") === "true" ? "off" : "on");
    });
  }
  if (dv.onRender) {
    dv.onRender(take);
    if (dv.state) { take(dv.state); }
  }
  if (dv.onLanguage) { dv.onLanguage(function () { if (dv.state) { take(dv.state); } }); }
})();
