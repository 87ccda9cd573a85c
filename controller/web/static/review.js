/* dvonn-board review mode: a journaled game (or the live one) step by step, with the engine's
   review from GET /api/review/ID (controller/web/reviews.py). No library: DOM and SVG.
   The contract outside tests rely on: #review[data-game][data-status], body[data-review-step]
   (the actions shown so far), the board's [data-cell] data-stack (as on the live view),
   #board[data-best] (the engine's best action there, drawn as #marks .best),
   #eval-graph circle.point[data-ply] (one per action, class mistake/blunder),
   #review-actions li[data-ply][data-mark]. Opens from #review=ID in the address too. */
(function () {
  "use strict";
  var dv = window.dvonn;
  var SVGNS = "http://www.w3.org/2000/svg";
  var W = 320, H = 120, PAD = 8;
  var panel = document.getElementById("review");
  var livePanel = document.getElementById("live-panel");
  var graph = document.getElementById("eval-graph");
  var list = document.getElementById("review-actions");
  var data = null, step = 0, gameId = null, timer = null, scale = 1;
  var SIDE = { w: "White", b: "Black" };
  var t = dv.t, tn = dv.tn, said = dv.said, playerName = dv.playerName;

  function el(tag, attrs, content) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (content !== undefined) { e.textContent = content; }
    return e;
  }
  function text(id, value) { document.getElementById(id).textContent = value; }
  function pieces(v) { return (v > 0 ? "+" : v < 0 ? "\u2212" : "\u00b1") + Math.abs(v).toFixed(1); }
  function cellsOf(action) {  // "C3D4" -> from C3 to D4; "C3" a placement; PASS: nothing
    if (!action || action === "PASS") { return null; }
    return action.length === 2 ? { action: action, from: null, to: action } :
      { action: action, from: action.slice(0, 2), to: action.slice(2, 4) };
  }
  function reviewed(ply) {  // the engine's review of action number ply (1-based), or null
    var a = data && data.analysis;
    return (a && a.actions[ply - 1]) || null;
  }

  /* ---------------------------------------------------------------- the graph */
  function yOf(v) {
    var c = Math.max(-scale, Math.min(scale, v));
    return H / 2 - c * (H / 2 - PAD) / scale;
  }
  function xOf(ply) {
    var n = data.actions.length;
    return n > 1 ? PAD + (ply - 1) * (W - 2 * PAD) / (n - 1) : W / 2;
  }
  function drawGraph() {
    while (graph.firstChild) { graph.removeChild(graph.firstChild); }
    graph.setAttribute("viewBox", "0 0 " + W + " " + H);
    graph.appendChild(el("rect", { "class": "bg", x: 0, y: 0, width: W, height: H }));
    graph.appendChild(el("line", { "class": "zero", x1: 0, y1: H / 2, x2: W, y2: H / 2 }));
    var acts = (data.analysis && data.analysis.actions) || [];
    if (!acts.length) {
      graph.appendChild(el("text", { "class": "wait", x: W / 2, y: H / 2 - 6 },
        data.status === "hidden" ? t("the evaluation shows after the game") : t("analysing\u2026")));
      return;
    }
    scale = 4;
    acts.forEach(function (a) { scale = Math.max(scale, Math.abs(a.after)); });
    scale = Math.min(scale, 24);
    if (data.actions.length > 49) {  // where the placing phase ends
      var xm = (xOf(49) + xOf(50)) / 2;
      graph.appendChild(el("line", { "class": "phase", x1: xm, y1: 0, x2: xm, y2: H }));
    }
    var pts = acts.map(function (a) { return xOf(a.ply).toFixed(1) + "," + yOf(a.after).toFixed(1); });
    var first = acts[0], last = acts[acts.length - 1];
    graph.appendChild(el("polygon", { "class": "area", points: xOf(first.ply).toFixed(1) + "," + H / 2 +
      " " + pts.join(" ") + " " + xOf(last.ply).toFixed(1) + "," + H / 2 }));
    graph.appendChild(el("polyline", { "class": "line", points: pts.join(" ") }));
    graph.appendChild(el("line", { "class": "cursor", id: "eval-cursor", x1: 0, y1: 0, x2: 0, y2: H }));
    acts.forEach(function (a) {
      var kind = a.mark === "??" ? " blunder" : a.mark === "?" ? " mistake" : "";
      var c = el("circle", { "class": "point" + kind, "data-ply": a.ply, cx: xOf(a.ply).toFixed(1),
        cy: yOf(a.after).toFixed(1), r: kind ? 3.2 : 2.2 });
      c.appendChild(el("title", {}, a.ply + ". " + a.action + a.mark + " " + pieces(a.after)));
      graph.appendChild(c);
    });
  }
  graph.addEventListener("click", function (ev) {
    if (!data || !data.actions.length) { return; }
    var ply = Number(ev.target.getAttribute && ev.target.getAttribute("data-ply"));
    if (!ply) {  // anywhere on the graph: the nearest action
      var m = graph.getScreenCTM();
      if (!m) { return; }
      var p = graph.createSVGPoint();
      p.x = ev.clientX; p.y = ev.clientY;
      var x = p.matrixTransform(m.inverse()).x, n = data.actions.length;
      ply = n > 1 ? Math.max(1, Math.min(n, Math.round((x - PAD) * (n - 1) / (W - 2 * PAD)) + 1)) : 1;
    }
    showStep(ply);
  });

  /* ---------------------------------------------------------------- the actions */
  function buildList() {
    while (list.firstChild) { list.removeChild(list.firstChild); }
    data.actions.forEach(function (action, i) {
      var li = document.createElement("li");
      li.setAttribute("data-ply", String(i + 1));
      li.addEventListener("click", function () { showStep(i + 1); });
      list.appendChild(li);
    });
    markList();
  }
  function markList() {
    Array.prototype.forEach.call(list.children, function (li, i) {
      var a = reviewed(i + 1), mark = a ? a.mark : "";
      li.textContent = data.actions[i] + mark;
      li.setAttribute("data-mark", mark);
      li.className = mark === "??" ? "blunder" : mark === "?" ? "mistake" : "";
      li.title = a ? pieces(a.before) + " \u2192 " + pieces(a.after) +
        (a.loss ? ", " + t("lost {loss} against {best}", { loss: a.loss.toFixed(1), best: a.best }) : "") : "";
    });
  }

  /* ---------------------------------------------------------------- one position */
  function showStep(i) {
    if (!data) { return; }
    step = Math.max(0, Math.min(data.steps.length - 1, i));
    var s = data.steps[step];
    var here = reviewed(step + 1);  // the action played from here: its best is the engine's
    var best = here && here.best ? cellsOf(here.best) : null;
    dv.show({ stacks: s.stacks, last_move: s.last_move, removed: s.removed, best: best });
    document.getElementById("board").setAttribute("data-best", best ? best.action : "");
    document.body.setAttribute("data-review-step", String(step));
    text("review-ply", step + " / " + data.actions.length);
    var note = [];
    var played = reviewed(step);
    if (step > 0) {
      var who = SIDE[data.steps[step - 1].turn] ? t(SIDE[data.steps[step - 1].turn]) : "";
      var line = step + ". " + who + " " + data.actions[step - 1] + (played ? played.mark : "");
      if (played) {
        line += ": " + pieces(played.before) + " \u2192 " + pieces(played.after);
        if (played.forced) { line += " " + t("(forced)"); } else if (played.loss) {
          line += ", " + t("lost {loss} pieces; the engine's best: {best}",
            { loss: played.loss.toFixed(1), best: played.best });
        } else if (played.best === played.action) { line += " " + t("(the engine's choice too)"); }
      }
      note.push(line);
    }
    if (best) {
      note.push(here.best_cuts.length ? t("Best here: {action} (cuts off {cells})",
        { action: best.action, cells: here.best_cuts.join(" ") }) :
        t("Best here: {action}", { action: best.action }));
    }
    note.push(t("White {w} \u00b7 Black {b}", { w: s.score.white, b: s.score.black }) +
      (s.phase === "over" ? " \u00b7 " + t("game over") : ""));
    text("review-note", note.join(" | "));
    Array.prototype.forEach.call(list.children, function (li, k) {
      li.classList.toggle("current", k + 1 === step);
    });
    var cur = list.children[step - 1];
    if (cur && cur.scrollIntoView) { cur.scrollIntoView({ block: "nearest" }); }
    var cursor = document.getElementById("eval-cursor");
    if (cursor) {
      var x = step > 0 ? xOf(step) : 0;
      cursor.setAttribute("x1", x); cursor.setAttribute("x2", x);
      cursor.style.visibility = step > 0 ? "visible" : "hidden";
    }
    Array.prototype.forEach.call(panel.querySelectorAll("[data-step]"), function (b) {
      var back = b.getAttribute("data-step") === "first" || b.getAttribute("data-step") === "prev";
      b.disabled = back ? step === 0 : step === data.actions.length;
    });
  }
  function go(where) {
    if (!data) { return; }
    showStep({ first: 0, prev: step - 1, next: step + 1, last: data.actions.length }[where]);
  }
  Array.prototype.forEach.call(panel.querySelectorAll("[data-step]"), function (b) {
    b.addEventListener("click", function () { go(b.getAttribute("data-step")); });
  });
  document.addEventListener("keydown", function (ev) {
    if (panel.hidden || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") { return; }
    var where = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[ev.key];
    if (where) { ev.preventDefault(); go(where); }
  });
  var touch = null;  // a swipe over the board: right for back, left for on
  var wrap = document.querySelector(".board-wrap");
  wrap.addEventListener("touchstart", function (ev) {
    var tc = ev.changedTouches[0];
    touch = panel.hidden ? null : [tc.clientX, tc.clientY];
  }, { passive: true });
  wrap.addEventListener("touchend", function (ev) {
    if (!touch) { return; }
    var tc = ev.changedTouches[0], dx = tc.clientX - touch[0], dy = tc.clientY - touch[1];
    touch = null;
    if (Math.abs(dx) > 40 && Math.abs(dx) > 1.5 * Math.abs(dy)) { go(dx < 0 ? "next" : "prev"); }
  }, { passive: true });

  /* ---------------------------------------------------------------- open, load, close */
  function status(msg) { text("review-status", msg); }
  function open(id, fallback) {
    close(true);
    gameId = String(id);
    data = null;
    step = 0;
    livePanel.hidden = true;
    panel.hidden = false;
    panel.setAttribute("data-game", gameId);
    panel.setAttribute("data-status", "loading");
    document.body.classList.add("reviewing");
    text("review-title", t("Review"));
    status(t("loading\u2026"));
    if (window.history.replaceState) { window.history.replaceState(null, "", "#review=" + gameId); }
    load(gameId, fallback);
  }
  function load(id, fallback) {
    timer = null;
    fetch("/api/review/" + encodeURIComponent(id), { credentials: "same-origin" }).then(function (r) {
      return r.json().then(function (body) { return { ok: r.ok, code: r.status, body: body }; });
    }).then(function (res) {
      if (id !== gameId) { return; }  // closed or another game opened meanwhile
      if (!res.ok) {
        if (fallback && res.code === 404) { open(fallback); return; }
        panel.setAttribute("data-status", "failed");
        status(said(res.body) ||
          t("this game cannot be reviewed ({code})", { code: res.code }));
        return;
      }
      var b = res.body, fresh = !data;
      data = b;
      panel.setAttribute("data-status", b.status);
      text("review-title", t("{white} vs {black}", { white: playerName(b.white, "w"),
        black: playerName(b.black, "b") }) + (b.result ? " \u00b7 " + b.result : b.live ? " \u00b7 " +
        t("on the table") : ""));
      if (fresh) { buildList(); } else { markList(); }
      drawGraph();
      showStep(step);
      var p = b.progress || { done: 0, total: 0 };
      var waiting = b.status === "analysing" || b.status === "queued" || b.status === "busy";
      status(b.status === "done" ? t("Evaluation in pieces, + when White is ahead; ? lost {mistake} " +
        "or more, ?? {blunder} or more", { mistake: b.analysis.marks["?"], blunder: b.analysis.marks["??"] }) +
        (b.analysis.complete ? "" : " " + t("(the analysis was cut short)")) :
        b.status === "analysing" ? t("The engine is analysing: {done} of {total} actions\u2026",
          { done: p.done, total: p.total }) :
        said(b) || (b.status === "queued" ? t("waiting for the engine\u2026") : ""));
      if (waiting) { timer = setTimeout(function () { load(id); }, 1000); }
    }).catch(function () {
      if (id === gameId) { status(t("the table did not answer")); timer = setTimeout(function () { load(id); }, 3000); }
    });
  }
  function close(quiet) {
    if (timer) { clearTimeout(timer); timer = null; }
    gameId = null;
    data = null;
    if (quiet) { return; }
    panel.hidden = true;
    livePanel.hidden = false;
    document.body.classList.remove("reviewing");
    document.body.removeAttribute("data-review-step");
    document.getElementById("board").removeAttribute("data-best");
    dv.show(null);
    if (window.history.replaceState) { window.history.replaceState(null, "", "/"); }
  }
  document.getElementById("review-close").addEventListener("click", function () { close(false); });
  document.getElementById("review-this").addEventListener("click", function () {
    var s = dv.state || {};
    if (s.game_id !== null && s.game_id !== undefined) { open(s.game_id, "live"); } else { open("live"); }
  });

  /* ---------------------------------------------------------------- the games */
  document.getElementById("games-open").addEventListener("click", function () {
    var ul = document.getElementById("game-list"), note = document.getElementById("games-note");
    fetch("/api/games", { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (body) {
      while (ul.firstChild) { ul.removeChild(ul.firstChild); }
      var games = body.games || [];
      note.hidden = !!games.length;
      note.textContent = body.journal ? t("no games in the journal yet") :
        t("this table keeps no journal: only the game on the table can be reviewed");
      var rows = games.length ? games : [{ id: "live", white: "", black: "", live: true, actions: null }];
      rows.forEach(function (g) {
        var li = document.createElement("li");
        li.setAttribute("data-game", String(g.id));
        var b = document.createElement("button");
        b.type = "button";
        b.textContent = t("Review");
        b.addEventListener("click", function () { open(g.id); });
        li.textContent = g.id === "live" ? t("The game on the table") + " " :
          "#" + g.id + " " + t("{white} vs {black}", { white: playerName(g.white, "w"),
            black: playerName(g.black, "b") }) + " \u00b7 " +
          (g.result || (g.live ? t("on the table") : t("unfinished"))) + " \u00b7 " +
          tn("{n} action", "{n} actions", g.actions, { n: g.actions }) +
          (g.started ? " \u00b7 " + String(g.started).slice(0, 10) : "") + " ";
        li.appendChild(b);
        ul.appendChild(li);
      });
      ul.hidden = false;
    }).catch(function () { note.hidden = false; note.textContent = t("the table did not answer"); });
  });

  dv.onLanguage(function () {  // the page's switch: redraw what is open in the new words
    if (!data) { return; }
    markList();
    drawGraph();
    showStep(step);
  });
  dv.review = { open: open, close: function () { close(false); }, go: go };
  var m = /^#review=(\w+)$/.exec(window.location.hash || "");
  if (m) { open(m[1]); }
})();
