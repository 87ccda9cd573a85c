/* dvonn-board live view: keeps the server-drawn board in step with /api/events (SSE).
   No build step, no library: plain DOM and SVG. The contract outside tests rely on:
   [data-cell] (49), data-stack (bottom->top, w/b/r), data-role (from /api/state), #actions. */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("config").textContent);
  var info = cfg.info;
  var SVGNS = "http://www.w3.org/2000/svg";
  var R = cfg.radius;
  var board = document.getElementById("board");
  var marks = document.getElementById("marks");
  var cells = {};
  var names = [];
  var pos = {};
  var state = null;
  var seq = 0;
  var orientation = "";
  var shown = null;  // the position review.js shows (null: the table's)
  var PIECE = { w: ["#f3eee0", "#6f675a"], b: ["#242424", "#9a9a9a"], r: ["#c8322b", "#5e0f0b"] };
  var SIDE = { w: "White", b: "Black" };
  var hooks = [];  // called after the language changes (review.js redraws)
  var renders = [];  // called after each state is drawn (remote.js)

  /* ---------------------------------------------------------------- language */
  var lang = cfg.lang || "en";
  var catalogs = { en: {} };
  catalogs[lang] = cfg.catalog || {};
  /* msgid in the page's language, {name} filled from params (the server's catalog, gettext) */
  function t(msgid, params) {
    var s = catalogs[lang] && catalogs[lang][msgid];
    s = typeof s === "string" && s ? s : msgid;
    return params ? s.replace(/\{(\w+)\}/g, function (m, k) {
      return Object.prototype.hasOwnProperty.call(params, k) ? String(params[k]) : m;
    }) : s;
  }
  function tn(singular, plural, n, params) {
    var forms = catalogs[lang] && catalogs[lang][singular];
    var s = Array.isArray(forms) ? forms[n === 1 ? 0 : 1] : (n === 1 ? singular : plural);
    return s.replace(/\{(\w+)\}/g, function (m, k) {
      return params && Object.prototype.hasOwnProperty.call(params, k) ? String(params[k]) : m;
    });
  }
  /* a player's name as shown: the names a game gets when nobody gives one ("White",
     "Black": the config's and the journal's defaults, kept as they are in the data) in the
     page's language */
  function playerName(name, side) {
    return !name || name === SIDE[side] ? t(SIDE[side]) : name;
  }
  var ATTRS = ["title", "placeholder", "aria-label", "alt"];
  function translateStatic() {
    document.documentElement.setAttribute("lang", lang);
    Array.prototype.forEach.call(document.querySelectorAll("[data-i18n]"), function (e) {
      e.textContent = t(e.getAttribute("data-i18n"));
    });
    ATTRS.forEach(function (a) {
      Array.prototype.forEach.call(document.querySelectorAll("[data-i18n-" + a + "]"), function (e) {
        e.setAttribute(a, t(e.getAttribute("data-i18n-" + a)));
      });
    });
    var pick = document.getElementById("lang");
    if (pick && pick.value !== lang) { pick.value = lang; }
  }
  function setLanguage(want) {
    var ready = catalogs[want] ? Promise.resolve(catalogs[want]) :
      fetch("/api/i18n/" + encodeURIComponent(want), { credentials: "same-origin" }).then(function (r) {
        if (!r.ok) { throw new Error("no catalog"); }
        return r.json();
      });
    return ready.then(function (cat) {
      catalogs[want] = cat;
      lang = want;
      translateStatic();
      if (state) { render(state); }
      shareLabel();
      hooks.forEach(function (fn) { fn(lang); });
    }).catch(function () { /* keep the language shown */ });
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-cell]"), function (g) {
    cells[g.getAttribute("data-cell")] = g;
    names.push(g.getAttribute("data-cell"));
  });

  function el(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  /* ---------------------------------------------------------------- layout */
  function layout() {
    var portrait = window.innerHeight > window.innerWidth * 1.15 && window.innerWidth < 760;
    var o = portrait ? "portrait" : "landscape";
    if (o === orientation) { return; }
    orientation = o;
    document.body.setAttribute("data-orientation", o);
    var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    cfg.cells.forEach(function (c) {
      // portrait: the landscape board turned a quarter clockwise (row 1 on the left, A on top)
      var x = portrait ? -c[2] : c[1], y = portrait ? c[1] : c[2];
      pos[c[0]] = [x, y];
      minX = Math.min(minX, x); maxX = Math.max(maxX, x);
      minY = Math.min(minY, y); maxY = Math.max(maxY, y);
      var g = cells[c[0]];
      g.setAttribute("transform", "translate(" + x + " " + y + ")");
      var pts = portrait ? cfg.hex.flat : cfg.hex.pointy;
      Array.prototype.forEach.call(g.querySelectorAll("polygon"), function (p) {
        p.setAttribute("points", pts);
      });
    });
    var pad = R + 4;
    board.setAttribute("viewBox", [minX - pad, minY - pad, maxX - minX + 2 * pad,
      maxY - minY + 2 * pad].join(" "));
    drawMarks();
  }

  /* ---------------------------------------------------------------- stacks */
  function drawPile(g, stack) {
    var pile = g.querySelector(".pile");
    if (pile.getAttribute("data-drawn") === stack) { return; }
    pile.setAttribute("data-drawn", stack);
    while (pile.firstChild) { pile.removeChild(pile.firstChild); }
    var n = stack.length;
    if (!n) { return; }
    var rx = R * 0.56, ry = R * 0.21, room = R * 0.66, base = R * 0.3;
    var step = n > 1 ? Math.min(R * 0.17, room / (n - 1)) : 0;
    for (var i = 0; i < n; i++) {
      var colours = PIECE[stack[i]] || PIECE.w;
      var cy = base - i * step;
      pile.appendChild(el("ellipse", { cx: 0, cy: (cy + Math.min(step, R * 0.08)).toFixed(2),
        rx: rx, ry: ry, fill: colours[1] }));
      pile.appendChild(el("ellipse", { cx: 0, cy: cy.toFixed(2), rx: rx, ry: ry,
        fill: colours[0], stroke: colours[1], "stroke-width": 1.1, "class": "piece " + stack[i] }));
    }
    var top = stack[n - 1];
    if (n > 1) {
      pile.appendChild(el("text", { "class": "height", x: 0, y: (base - (n - 1) * step + R * 0.12).toFixed(2),
        fill: top === "b" || top === "r" ? "#fff" : "#111" }, String(n)));
    }
    var title = el("title", {}, g.getAttribute("data-cell") + ": " + tn("{n} piece (bottom to top {pieces})",
      "{n} pieces (bottom to top {pieces})", n, { n: n, pieces: stack.split("").join(" ") }));
    pile.appendChild(title);
  }

  function drawMarks() {
    while (marks.firstChild) { marks.removeChild(marks.firstChild); }
    var shownNow = shown || state;  // a reviewed position (review.js), else the table's
    // the last move: its two spaces tinted under the pieces (lichess-style), never a mark
    // over a stack or its height
    var last = shownNow && shownNow.last_move;
    names.forEach(function (name) {
      cells[name].classList.toggle("last-from", !!(last && last.from === name));
      cells[name].classList.toggle("last-to", !!(last && last.to === name));
    });
    if (!shownNow) { return; }
    var removed = shownNow.removed || {};
    Object.keys(removed).forEach(function (name) {
      var p = pos[name];
      if (!p) { return; }
      var g = el("g", { "class": "removed", transform: "translate(" + p[0] + " " + p[1] + ")" });
      g.appendChild(el("circle", { r: R * 0.55 }));
      g.appendChild(el("path", { d: "M-8,-8L8,8M8,-8L-8,8" }));
      g.appendChild(el("title", {}, name + ": " + t("removed {pieces}", { pieces: removed[name] })));
      marks.appendChild(g);
    });
  }

  /* ---------------------------------------------------------------- state */
  function text(id, value) {
    var e = document.getElementById(id);
    if (e.textContent !== value) { e.textContent = value; }
  }

  /* the board: stacks, LED roles and blinking cells (the table's, or a reviewed position's) */
  function paint(stacks, roles, blinking) {
    var blink = {};
    (blinking || []).forEach(function (n) { blink[n] = true; });
    names.forEach(function (name) {
      var g = cells[name];
      var stack = stacks[name] || "", role = roles[name] || "";
      if (g.getAttribute("data-stack") !== stack) { g.setAttribute("data-stack", stack); }
      if (g.getAttribute("data-role") !== role) { g.setAttribute("data-role", role); }
      g.classList.toggle("blink", !!blink[name]);
      drawPile(g, stack);
    });
    drawMarks();
  }

  function render(s) {
    state = s;
    if (!shown) { paint(s.stacks || {}, s.roles || {}, s.blink); }
    var list = document.getElementById("actions");
    var actions = s.actions || [];
    var items = list.children;
    var cuts = s.cut_off || {};
    for (var i = 0; i < actions.length; i++) {
      if (i >= items.length) { list.appendChild(document.createElement("li")); }
      if (items[i].textContent !== actions[i]) { items[i].textContent = actions[i]; }
      cutNote(items[i], cuts[String(i)]);
    }
    while (list.children.length > actions.length) { list.removeChild(list.lastChild); }
    list.scrollTop = list.scrollHeight;  // the newest action in view (the list scrolls itself)
    var players = s.players || {};
    text("name-w", playerName(players.white, "w"));
    text("name-b", playerName(players.black, "b"));
    var score = s.score || {};
    text("score-w", String(score.white || 0));
    text("score-b", String(score.black || 0));
    var turn;
    var english;
    if (s.phase === "over") {
      english = "Game over";
    } else if (s.phase === "placing") {
      english = SIDE[s.turn] + " to place " + (s.piece_to_place === "r" ? "a DVONN piece" : "a piece");
    } else {
      english = SIDE[s.turn] + " to move";
    }
    turn = english === "Game over" ? t("Game over") : t(english);
    text("turn", turn);
    // the message without what the header and the result line already say (the parts are
    // the same in the English message and in the page's language)
    var parts = (s.message || "").split(" | ");
    var shownParts = ((s.messages && s.messages[lang]) || s.message || "").split(" | ");
    if (shownParts.length !== parts.length) { shownParts = parts; }
    var message = shownParts.filter(function (part, i) {
      return parts[i] !== english && !(s.winner && parts[i].indexOf("game over") === 0);
    }).join(" | ");
    document.body.setAttribute("data-turn", s.phase === "over" ? "" : s.turn);
    text("message", message);
    var result = document.getElementById("result");
    if (s.winner) {
      var w = score.white || 0, b = score.black || 0;
      result.textContent = s.winner === "tie" ? t("Tie, {w} to {b}", { w: w, b: b }) :
        t("{name} wins, {high} to {low}", { name: s.winner === "w" ? playerName(players.white, "w") :
          playerName(players.black, "b"), high: Math.max(w, b), low: Math.min(w, b) });
      result.hidden = false;
    } else {
      result.hidden = true;
    }
    document.getElementById("review-this").hidden = !s.winner;  // review.js opens it
    // after the end only New game (and Share hints) are left to press
    Array.prototype.forEach.call(document.querySelectorAll(
      "#controls [data-control=confirm], #controls [data-control=next], " +
      "#controls [data-control=undo], #controls [data-control=hint]"), function (b) {
      b.hidden = s.phase === "over";
    });
    var hint = document.querySelector("#controls [data-control=hint]");
    if (hint) { hint.setAttribute("aria-pressed", s.hints || s.analysis ? "true" : "false"); }
    if (s.prompt === "choose-destination") { text("message", confirmSays(s, message)); }
    legend(s);
    document.body.setAttribute("data-ply", String(s.ply));
    document.body.setAttribute("data-game", String(s.game_id));
    document.body.setAttribute("data-prompt", s.prompt || "");
    window.dvonn.state = s;
    renders.forEach(function (fn) { fn(s); });
  }

  /* what an action cut off ({cell: pieces}), after it in the list: "×5 D3 E3" (the
     item's text stays the action: CSS shows data-cut) */
  function cutNote(li, cut) {
    var cellsCut = cut ? Object.keys(cut).sort() : [];
    var n = 0;
    cellsCut.forEach(function (c) { n += cut[c].length; });
    var note = n ? " \u00d7" + n + " " + cellsCut.join(" ") : "";
    if ((li.getAttribute("data-cut") || "") === note && li.getAttribute("data-cut-lang") === lang) {
      return;
    }
    li.setAttribute("data-cut-lang", lang);
    if (note) {
      li.setAttribute("data-cut", note);
      li.title = tn("cut off {n} piece: {cells}", "cut off {n} pieces: {cells}", n,
        { n: n, cells: cellsCut.map(function (c) { return c + " (" + cut[c].length + ")"; }).join(", ") });
    } else {
      li.removeAttribute("data-cut");
      li.removeAttribute("title");
    }
  }
  /* a prompt to choose where the lifted stack landed: which space Confirm picks */
  function confirmSays(s, message) {
    var roles = s.roles || {};
    var picked = Object.keys(roles).filter(function (c) { return roles[c] === "suggest"; });
    var add = picked.length === 1 ?
      t("Confirm: it landed on {cell} (Next: another space)", { cell: picked[0] }) :
      t("Next marks a space, then Confirm: it landed there");
    return message ? message + " | " + add : add;
  }
  /* the legend: a word for each colour on the board now */
  function legendWords(s) {
    return [["last", t("last move")], ["movable", t("can move")], ["suggest", s.analysis ?
      t("the engine's best action") : t("suggested action")], ["source", t("lifted stack")],
      ["destination", t("can land here")], ["remove", t("take away")],
      ["mismatch", t("differs from the game")], ["cut", t("cut off")]];
  }
  function legend(s) {
    var box = document.getElementById("legend");
    if (!box) { return; }
    var roles = s.roles || {}, seen = {};
    Object.keys(roles).forEach(function (c) { seen[roles[c]] = true; });
    if (s.last_move) { seen.last = true; }
    if (s.removed && Object.keys(s.removed).length) { seen.cut = true; }
    var rows = [];
    legendWords(s).forEach(function (e) { if (seen[e[0]]) { rows.push(e); } });
    var players = s.players || {};
    if (s.phase === "over") {
      if (s.winner && s.winner !== "tie") {
        var loser = s.winner === "w" ? "b" : "w";
        rows.push(["winner", t("{name}'s stacks: winner", { name: playerName(
          s.winner === "w" ? players.white : players.black, s.winner) })]);
        rows.push([loser === "w" ? "own-white" : "own-black", t("{name}'s stacks", {
          name: playerName(loser === "w" ? players.white : players.black, loser) })]);
      } else {
        rows.push(["own-white", t("{name}'s stacks", { name: playerName(players.white, "w") })]);
        rows.push(["own-black", t("{name}'s stacks", { name: playerName(players.black, "b") })]);
      }
    }
    var key = JSON.stringify(rows);
    if (box.getAttribute("data-key") === key) { return; }
    box.setAttribute("data-key", key);
    while (box.firstChild) { box.removeChild(box.firstChild); }
    rows.forEach(function (r) {
      var li = document.createElement("li");
      li.setAttribute("data-legend", r[0]);
      var sw = document.createElement("span");
      sw.className = "sw " + r[0];
      li.appendChild(sw);
      li.appendChild(document.createTextNode(r[1]));
      box.appendChild(li);
    });
    box.hidden = !rows.length;
  }

  /* ---------------------------------------------------------------- live updates */
  var source = null;
  function live(on) {
    document.getElementById("live").classList.toggle("on", on);
  }
  function connect() {
    if (source) { source.close(); }
    source = new EventSource("/api/events");
    source.addEventListener("state", function (ev) {
      seq = Number(ev.lastEventId) || seq + 1;
      render(JSON.parse(ev.data));
      document.body.setAttribute("data-seq", String(seq));
    });
    source.onopen = function () { live(true); };
    source.onerror = function () {
      live(false);
      if (source.readyState === 2) { setTimeout(connect, 1000); }  // closed: start again
    };
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && (!source || source.readyState === 2)) { connect(); }
  });

  /* ---------------------------------------------------------------- control (paired only) */
  var queue = Promise.resolve();
  /* a server answer's detail in the page's language: its "details" (the server's catalog),
     else the English "detail" looked up as a fixed message */
  function said(body) {
    if (!body) { return ""; }
    return (body.details && body.details[lang]) || (body.detail ? t(body.detail) : "");
  }
  function notice(msg) {
    var n = document.getElementById("notice");
    n.textContent = msg;
    n.hidden = !msg;
  }
  /* every control request says it comes from this page (the server refuses others) */
  function send(path, body) {
    var headers = { "X-Dvonn-Request": "1" };
    if (body !== undefined) { headers["Content-Type"] = "application/json"; }
    return fetch(path, { method: "POST", credentials: "same-origin", headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body) });
  }
  function post(path) {
    queue = queue.then(function () {
      return send(path).then(function (r) {
        return r.json().then(function (body) {
          notice(r.ok ? "" : (said(body) || t("refused ({code})", { code: r.status })));
          return body;
        });
      }).catch(function () { notice(t("the table did not answer")); });
    });
    return queue;
  }
  function seat() {
    var sel = document.getElementById("seat");
    return sel ? sel.value : "";
  }
  if (info.paired) {
    document.getElementById("controls").hidden = false;
    Array.prototype.forEach.call(document.querySelectorAll("[data-control]"), function (b) {
      b.addEventListener("click", function () {
        var name = b.getAttribute("data-control");
        if (name === "new" && !window.confirm(t("Start a new game? This one is closed."))) { return; }
        if (name === "share") {
          post("/api/control/share?on=" + (info.share_hints ? "0" : "1")).then(function (body) {
            if (body && body.ok) { info.share_hints = body.share_hints; shareLabel(); }
          });
          return;
        }
        post("/api/control/" + name);
      });
    });
    if (info.virtual) {
      var mine = { white: "w", black: "b" }[info.seat] || "";
      document.getElementById("seat-label").hidden = false;
      var saved = window.localStorage ? localStorage.getItem("dvonn-seat") : "";
      if (mine) {  // paired for one seat: that side only
        saved = mine;
        document.getElementById("seat").disabled = true;
      }
      if (saved) { document.getElementById("seat").value = saved; }
      document.getElementById("seat").addEventListener("change", function (ev) {
        if (window.localStorage) { localStorage.setItem("dvonn-seat", ev.target.value); }
      });
      names.forEach(function (name) {
        cells[name].addEventListener("click", function () {
          var s = seat();
          post("/api/control/click/" + name + (s ? "?seat=" + s : ""));
        });
      });
    }
    devices();
    hooks.push(devices);  // the list again in the words the page's switch chose
  } else if (!info.remote) {  // a remote player's page: remote.js
    document.getElementById("spectator").hidden = false;
    pairing();
  }

  /* ---------------------------------------------------------------- pairing, devices */
  function pairing() {
    var form = document.getElementById("pair");
    form.hidden = false;
    if (/[?&]pair=\d/.test(window.location.search)) {  // the printed pairing URL: the form
      var top = document.getElementById("live-panel");  // first, in view (below the board
      top.insertBefore(form, top.firstChild);            // on a phone)
      setTimeout(function () { form.scrollIntoView({ block: "start" }); }, 0);  // laid out
    }
    if (window.location.search && window.history.replaceState) {
      window.history.replaceState(null, "", "/");  // the code leaves the address bar
    }
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      send("/api/pair", { code: document.getElementById("pair-code").value.trim(),
        seat: document.getElementById("pair-seat").value,
        name: document.getElementById("pair-name").value }).then(function (r) {
        return r.json().then(function (body) {
          if (r.ok) { window.location.replace("/"); } else { notice(said(body) || t("refused")); }
        });
      }).catch(function () { notice(t("the table did not answer")); });
    });
    document.getElementById("pair-request").addEventListener("click", function () {
      send("/api/pair/request").then(function (r) { return r.json(); }).then(function (body) {
        notice(said(body));
      }).catch(function () { notice(t("the table did not answer")); });
    });
  }
  function ago(when) {
    var s = Math.max(0, Math.round(Date.now() / 1000 - when));
    return s < 90 ? t("just now") : s < 5400 ? t("{n} min ago", { n: Math.round(s / 60) }) :
      s < 129600 ? t("{n} h ago", { n: Math.round(s / 3600) }) :
      t("{n} days ago", { n: Math.round(s / 86400) });
  }
  function devices() {
    var box = document.getElementById("devices"), list = document.getElementById("device-list");
    box.hidden = false;
    fetch("/api/devices", { credentials: "same-origin" }).then(function (r) {
      return r.ok ? r.json() : { devices: [] };
    }).then(function (body) {
      while (list.firstChild) { list.removeChild(list.firstChild); }
      body.devices.forEach(function (d) {
        var li = document.createElement("li");
        li.setAttribute("data-device", d.id);
        li.textContent = d.name + (d["this"] ? " " + t("(this device)") : "") + " · " +
          ({ both: t("both"), white: t("white"), black: t("black") }[d.seat] || d.seat) + " · " + t("seen {when}", { when: ago(d.last_seen) }) + " ";
        var b = document.createElement("button");
        b.type = "button";
        b.className = "revoke";
        b.textContent = d["this"] ? t("Forget this device") : t("Revoke");
        b.addEventListener("click", function () {
          send("/api/devices/" + encodeURIComponent(d.id) + "/revoke").then(function (r) {
            if (d["this"] && r.ok) { window.location.replace("/"); } else { devices(); }
          });
        });
        li.appendChild(b);
        list.appendChild(li);
      });
    }).catch(function () { notice(t("the table did not answer")); });
    var another = document.getElementById("pair-another");
    another.hidden = info.seat !== "both";
    another.onclick = function () {
      send("/api/pair/request").then(function (r) { return r.json(); }).then(function (body) {
        var shown = document.getElementById("pair-another-code");
        shown.textContent = body.code ? t("Code for another phone: {code}", { code: body.code }) :
          said(body);
        shown.hidden = false;
      });
    };
  }
  function shareLabel() {
    var b = document.getElementById("share");
    b.textContent = info.share_hints ? t("Hide hints from spectators") :
      t("Share hints with spectators");
  }
  shareLabel();

  /* ---------------------------------------------------------------- camera */
  if (info.camera) {
    var box = document.getElementById("camera-box"), img = document.getElementById("camera");
    box.hidden = false;
    var refresh = function () {
      if (document.visibilityState !== "visible") { setTimeout(refresh, 1000); return; }
      img.onload = img.onerror = function () { setTimeout(refresh, 1000); };
      img.src = "/api/camera.jpg?t=" + Date.now();
    };
    refresh();
  }

  /* review.js: show a position instead of the table's ({stacks, last_move, removed}),
     or the table's again (null) */
  function show(view) {
    shown = view;
    var s = view || state || {};
    paint(s.stacks || {}, view ? {} : s.roles || {}, view ? [] : s.blink);
  }

  window.dvonn = { state: null, post: post, show: show, info: info, t: t, tn: tn, said: said,
    playerName: playerName,
    language: function () { return lang; }, setLanguage: setLanguage,
    onLanguage: function (fn) { hooks.push(fn); },
    onRender: function (fn) { renders.push(fn); } };
  window.addEventListener("resize", layout);
  layout();
  if (cfg.state) { render(cfg.state); }
  var pick = document.getElementById("lang");
  pick.value = lang;
  pick.addEventListener("change", function () {
    try { window.localStorage.setItem("dvonn-lang", pick.value); } catch (e) { /* private mode */ }
    setLanguage(pick.value);
  });
  var saved = null;
  try { saved = window.localStorage.getItem("dvonn-lang"); } catch (e) { saved = null; }
  if (saved && saved !== lang && pick.querySelector("option[value='" + saved.replace(/\W/g, "") + "']")) {
    setLanguage(saved);
  }
  connect();
})();
