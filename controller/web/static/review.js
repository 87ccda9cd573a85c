/* dvonn-board review mode: a journaled game (or the live one) step by step, with the engine's
   review from GET /api/review/ID (controller/web/reviews.py). No library: DOM and SVG.
   The contract outside tests rely on: #review[data-game][data-status], body[data-review-step]
   (the actions shown so far), the board's [data-cell] data-stack (as on the live view),
   #board[data-best] (the action outlined on the board: at a ?/?? the better action of the side
   who erred, else the engine's best next action; data-best-side w/b, data-best-kind
   alternative/next), the shown action's spaces tinted (.cell.rv-last-from/-to) and the
   outlined ones (.cell.rv-best-from/-to): nothing is drawn over a piece or a height number,
   #eval-graph circle.point[data-ply] (one per action reviewed so far, class mistake/blunder),
   #review-counts [data-side][data-mark] (the ? and ?? of each side),
   #review-actions li[data-ply][data-mark]. Opens from #review=ID in the address too. */
(function () {
  "use strict";
  var dv = window.dvonn;
  var SVGNS = "http://www.w3.org/2000/svg";
  var W = 320, H = 170;  // the graph's size in CSS px (W: its width on the page)
  var L = 34, R = 8, T = 8, B = 30;  // its margins: the axes' values and labels
  var panel = document.getElementById("review");
  var livePanel = document.getElementById("live-panel");
  var graph = document.getElementById("eval-graph");
  var list = document.getElementById("review-actions");
  var board = document.getElementById("board");
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
  function analysed() {  // the actions the engine has reviewed: all, or so far
    if (!data) { return []; }
    return (data.analysis && data.analysis.actions) || data.partial || [];
  }
  function reviewed(ply) {  // the engine's review of action number ply (1-based), or null
    return analysed()[ply - 1] || null;
  }
  function resultWord(result) {  // the journal's result in the page's language
    var words = { white: t("White wins"), black: t("Black wins"), tie: t("tie"),
      "white resigns": t("White resigned"), "black resigns": t("Black resigned"),
      abandoned: t("abandoned") };
    return words[result] || String(result);
  }

  /* ---------------------------------------------------------------- the graph */
  function yOf(v) {
    var c = Math.max(-scale, Math.min(scale, v));
    return T + (H - T - B) / 2 - c * (H - T - B) / 2 / scale;
  }
  function xOf(ply) {
    var n = data.actions.length;
    return n > 1 ? L + (ply - 1) * (W - L - R) / (n - 1) : (L + W - R) / 2;
  }
  function plyAt(x) {  // the action nearest to x (graph units)
    var n = data.actions.length;
    return n > 1 ? Math.max(1, Math.min(n, Math.round((x - L) * (n - 1) / (W - L - R)) + 1)) : 1;
  }
  function niceStep(span, most) {  // 1, 2, 5, 10, 20, ... so that at most `most` ticks fit
    var steps = [1, 2, 5, 10, 20, 25, 50, 100];
    for (var i = 0; i < steps.length; i++) { if (span / steps[i] <= most) { return steps[i]; } }
    return 200;
  }
  function drawGraph() {
    while (graph.firstChild) { graph.removeChild(graph.firstChild); }
    W = Math.max(240, Math.round(graph.clientWidth || 320));
    H = Math.max(120, Math.round(graph.clientHeight || 170));
    graph.setAttribute("viewBox", "0 0 " + W + " " + H);
    graph.setAttribute("preserveAspectRatio", "none");
    var acts = analysed(), n = data.actions.length, midY = T + (H - T - B) / 2;
    scale = 4;
    acts.forEach(function (a) { scale = Math.max(scale, Math.abs(a.after)); });
    scale = Math.min(Math.ceil(scale), 24);
    graph.appendChild(el("rect", { "class": "bg", x: L, y: T, width: W - L - R, height: H - T - B }));
    // the pieces axis: values at both sides of 0, its label turned along it
    var dy = niceStep(2 * scale, 4);
    for (var v = -Math.floor(scale / dy) * dy; v <= scale; v += dy) {
      var y = yOf(v);
      graph.appendChild(el("line", { "class": v === 0 ? "zero" : "grid", x1: L, y1: y, x2: W - R, y2: y }));
      graph.appendChild(el("text", { "class": "tick y", x: L - 4, y: y + 3.5 },
        (v > 0 ? "+" : v < 0 ? "\u2212" : "") + Math.abs(v)));
    }
    graph.appendChild(el("text", { "class": "axis-label pieces", x: 10, y: midY,
      transform: "rotate(-90 10 " + midY + ")" }, t("pieces")));
    graph.appendChild(el("text", { "class": "side-note", x: L + 4, y: T + 10 }, t("White ahead")));
    graph.appendChild(el("text", { "class": "side-note", x: L + 4, y: H - B - 4 }, t("Black ahead")));
    // the action axis: the number of actions played
    var dx = niceStep(Math.max(n, 1), Math.max(2, Math.floor((W - L - R) / 42)));
    for (var k = dx; k <= n; k += dx) {
      var x = xOf(k);
      graph.appendChild(el("line", { "class": "tick-mark", x1: x, y1: H - B, x2: x, y2: H - B + 4 }));
      graph.appendChild(el("text", { "class": "tick x", x: x, y: H - B + 14 }, String(k)));
    }
    graph.appendChild(el("text", { "class": "axis-label actions", x: W - R, y: H - 3 }, t("action")));
    if (n > 49) {  // where the placing phase ends
      var xm = (xOf(49) + xOf(50)) / 2;
      graph.appendChild(el("line", { "class": "phase", x1: xm, y1: T, x2: xm, y2: H - B }));
    }
    graph.appendChild(el("line", { "class": "cursor", id: "eval-cursor", x1: 0, y1: T, x2: 0, y2: H - B }));
    if (!acts.length) {
      graph.appendChild(el("text", { "class": "wait", x: (L + W - R) / 2, y: midY - 8 },
        data.status === "hidden" ? t("the evaluation shows after the game") : t("analysing\u2026")));
      return;
    }
    var pts = acts.map(function (a) { return xOf(a.ply).toFixed(1) + "," + yOf(a.after).toFixed(1); });
    var first = acts[0], last = acts[acts.length - 1];
    graph.appendChild(el("polygon", { "class": "area", points: xOf(first.ply).toFixed(1) + "," + midY +
      " " + pts.join(" ") + " " + xOf(last.ply).toFixed(1) + "," + midY }));
    graph.appendChild(el("polyline", { "class": "line", points: pts.join(" ") }));
    acts.forEach(function (a) {
      var kind = a.mark === "??" ? " blunder" : a.mark === "?" ? " mistake" : "";
      var c = el("circle", { "class": "point" + kind, "data-ply": a.ply, cx: xOf(a.ply).toFixed(1),
        cy: yOf(a.after).toFixed(1), r: kind ? 4.5 : 2.6 });
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
      ply = plyAt(p.matrixTransform(m.inverse()).x);
    }
    showStep(ply);
  });
  var resized = null;
  window.addEventListener("resize", function () {  // the graph is drawn in CSS px: again
    if (resized) { clearTimeout(resized); }
    resized = setTimeout(function () { resized = null; if (data && !panel.hidden) { drawGraph(); showStep(step); } }, 150);
  });

  /* the ? and ?? of each side, so far */
  var counts = document.createElement("p");
  counts.id = "review-counts";
  counts.className = "review-counts";
  graph.parentNode.insertBefore(counts, graph.nextSibling);
  function drawCounts() {
    while (counts.firstChild) { counts.removeChild(counts.firstChild); }
    var acts = analysed();
    counts.hidden = !acts.length;
    ["w", "b"].forEach(function (side) {
      var box = document.createElement("span");
      box.className = "side " + side;
      box.setAttribute("data-side", side);
      box.appendChild(document.createElement("i"));
      box.appendChild(document.createTextNode(t(SIDE[side]) + " "));
      [["?", "mistake", t("mistakes (?)")], ["??", "blunder", t("blunders (??)")]].forEach(function (m) {
        var n = acts.filter(function (a) { return a.side === side && a.mark === m[0]; }).length;
        var c = document.createElement("b");
        c.className = "count " + m[1];
        c.setAttribute("data-mark", m[0]);
        c.setAttribute("data-count", String(n));
        c.title = m[2];
        c.setAttribute("aria-label", m[2] + ": " + n);
        c.textContent = m[0] + "\u00a0" + n;
        box.appendChild(c);
      });
      counts.appendChild(box);
    });
  }

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
  var tinted = [];  // [cell, class]: the shown action's spaces and the outlined action's
  function tint(name, cls) {
    var g = name && board.querySelector('[data-cell="' + name + '"]');
    if (g) { g.classList.add(cls); tinted.push([g, cls]); }
  }
  function untint() {
    tinted.forEach(function (e) { e[0].classList.remove(e[1]); });
    tinted = [];
  }
  function showStep(i) {
    if (!data) { return; }
    step = Math.max(0, Math.min(data.steps.length - 1, i));
    var s = data.steps[step];
    var played = reviewed(step);  // the action that led here
    var here = reviewed(step + 1);  // the action played from here: its best is the engine's
    // at a ? or ??: the better action of the side who erred (in the position before it);
    // else the engine's best next action
    var erred = step > 0 && played && played.mark && played.best && played.best !== played.action;
    var shownBest = erred ? played : here && here.best ? here : null;
    var best = shownBest ? cellsOf(shownBest.best) : null;
    // the board draws no line: the spaces are tinted (the shown action) and outlined (the
    // engine's), under the pieces and their height numbers
    dv.show({ stacks: s.stacks, last_move: null, removed: s.removed });
    untint();
    var last = s.last_move;
    if (last && last.to) { tint(last.from, "rv-last-from"); tint(last.to, "rv-last-to"); }
    if (best) { tint(best.from, "rv-best-from"); tint(best.to, "rv-best-to"); }
    board.setAttribute("data-best", best ? best.action : "");
    board.setAttribute("data-best-side", shownBest ? shownBest.side : "");
    board.setAttribute("data-best-kind", best ? (erred ? "alternative" : "next") : "");
    document.body.setAttribute("data-review-step", String(step));
    text("review-ply", step + " / " + data.actions.length);
    var note = [];
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
    if (best && erred) {
      note.push(t("Outlined: the better action for {side}, {action}",
        { side: t(SIDE[played.side] || "White"), action: best.action }));
    } else if (best) {
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
    if (cur && list.scrollHeight > list.clientHeight) {  // within the list only, not the page
      var lr = list.getBoundingClientRect(), cr = cur.getBoundingClientRect();
      if (cr.top < lr.top) { list.scrollTop -= lr.top - cr.top; } else if (cr.bottom > lr.bottom) {
        list.scrollTop += cr.bottom - lr.bottom;
      }
    }
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
  /* a swipe over the board: right for back, left for on. The board takes horizontal swipes
     while reviewing (touch-action: pan-y in style.css; a horizontal move is not the
     browser's): they step the review, never leave the page (the browser's back gesture). */
  var touch = null;
  var wrap = document.querySelector(".board-wrap");
  function swipeEnd(x, y) {
    if (!touch) { return false; }
    var dx = x - touch[0], dy = y - touch[1];
    touch = null;
    if (Math.abs(dx) > 40 && Math.abs(dx) > 1.5 * Math.abs(dy)) { go(dx < 0 ? "next" : "prev"); return true; }
    return false;
  }
  wrap.addEventListener("touchstart", function (ev) {
    var tc = ev.changedTouches[0];
    touch = panel.hidden || ev.touches.length > 1 ? null : [tc.clientX, tc.clientY];
  }, { passive: true });
  wrap.addEventListener("touchmove", function (ev) {
    if (!touch || !ev.cancelable) { return; }
    var tc = ev.changedTouches[0];
    if (Math.abs(tc.clientX - touch[0]) > Math.abs(tc.clientY - touch[1])) { ev.preventDefault(); }
  }, { passive: false });
  wrap.addEventListener("touchend", function (ev) {
    var tc = ev.changedTouches[0];
    if (swipeEnd(tc.clientX, tc.clientY) && ev.cancelable) { ev.preventDefault(); }
  }, { passive: false });
  wrap.addEventListener("touchcancel", function () { touch = null; });

  /* the step buttons' words (their faces are arrows): tooltips and labels in the page's
     language, whatever language the page was first served in */
  function labelControls() {
    Array.prototype.forEach.call(panel.querySelectorAll("[data-i18n-title]"), function (b) {
      var words = t(b.getAttribute("data-i18n-title"));
      b.setAttribute("title", words);
      b.setAttribute("aria-label", words);
    });
    graph.setAttribute("aria-label", t(graph.getAttribute("data-i18n-aria-label") ||
      "the engine's evaluation after each action"));
  }
  labelControls();

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
        black: playerName(b.black, "b") }) + (b.result ? " \u00b7 " + resultWord(b.result) :
        b.live ? " \u00b7 " + t("on the table") : ""));
      if (fresh) { buildList(); } else { markList(); }
      drawGraph();
      drawCounts();
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
    ["data-best", "data-best-side", "data-best-kind"].forEach(function (a) { board.removeAttribute(a); });
    untint();
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
          (g.result ? resultWord(g.result) : g.live ? t("on the table") : t("unfinished")) + " \u00b7 " +
          tn("{n} action", "{n} actions", g.actions, { n: g.actions }) +
          (g.started ? " \u00b7 " + String(g.started).slice(0, 10) : "") + " ";
        li.appendChild(b);
        ul.appendChild(li);
      });
      ul.hidden = false;
    }).catch(function () { note.hidden = false; note.textContent = t("the table did not answer"); });
  });

  dv.onLanguage(function () {  // the page's switch: redraw what is open in the new words
    labelControls();
    if (!data) { return; }
    markList();
    drawGraph();
    drawCounts();
    showStep(step);
  });
  dv.review = { open: open, close: function () { close(false); }, go: go };
  function fromAddress() {  // #review=ID in the address: that game's review
    var m = /^#review=(\w+)$/.exec(window.location.hash || "");
    if (m && m[1] !== gameId) { open(m[1]); }
  }
  window.addEventListener("hashchange", fromAddress);
  fromAddress();
})();
