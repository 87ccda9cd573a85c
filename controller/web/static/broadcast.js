/* dvonn-board broadcast page: every table of a club, live from /api/events (SSE).
   No build step, no library: plain DOM and SVG; text only through textContent.
   The contract outside tests rely on: article[data-table] (one a table, those still playing
   first, then finished games, then tables gone mid-game, each by name; data-status
   online|left, data-playing 1|0, data-phase, data-ply, data-seq), its [data-cell] (49;
   data-stack bottom->top), .result, .turn; #standings tbody tr[data-player] (data-side w|b
   where a game's two sides have one name); #games li. */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("config").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var R = cfg.radius;
  var SIDE = { w: "White", b: "Black" };
  var tables = {};  // name -> {el, seq, entry}
  var results = { standings: [], games: [] };
  var brokerUp = true;

  /* ---------------------------------------------------------------- language */
  var lang = cfg.lang || "en";
  var catalogs = { en: {} };
  catalogs[lang] = cfg.catalog || {};
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
  function playerName(name, side) {
    return !name || name === SIDE[side] ? t(SIDE[side]) : name;
  }
  /* A side's name; with its colour where both sides of a game have the same name. */
  function sideName(white, black, side) {
    var name = playerName(side === "w" ? white : black, side);
    var same = playerName(white, "w").toLowerCase() === playerName(black, "b").toLowerCase();
    return same ? withColour(name, side) : name;
  }
  function withColour(name, side) {
    return side === "w" ? t("{name} (White)", { name: name }) :
      t("{name} (Black)", { name: name });
  }
  function setText(e, value) {
    if (e.textContent !== value) { e.textContent = value; }
  }
  function staticTexts() {
    document.documentElement.setAttribute("lang", lang);
    setText(document.getElementById("standings-title"), t("Standings"));
    setText(document.getElementById("games-title"), t("Finished games"));
    setText(document.getElementById("col-player"), t("Player"));
    setText(document.getElementById("col-games"), t("Games"));
    setText(document.getElementById("col-points"), t("Points"));
    setText(document.getElementById("col-pieces"), t("Pieces"));
    setText(document.getElementById("rule"), t("A win is 1 point, a tie 0.5, a loss 0; " +
      "equal points: more pieces (the scores of all games) first."));
    setText(document.getElementById("empty"), t("No table has published yet: start one with " +
      "--publish mqtt://HOST/{club}/TABLE", { club: cfg.club }));
    document.getElementById("live").title = t("live updates");
    document.getElementById("lang").setAttribute("aria-label", t("Language"));
  }
  var pick = document.getElementById("lang");
  (cfg.languages || ["en"]).forEach(function (code) {
    var o = document.createElement("option");
    o.value = code;
    o.textContent = { en: "English", de: "Deutsch" }[code] || code;
    pick.appendChild(o);
  });
  pick.value = lang;
  pick.addEventListener("change", function () {
    var want = pick.value;
    var ready = catalogs[want] ? Promise.resolve(catalogs[want]) :
      fetch("/api/i18n/" + encodeURIComponent(want)).then(function (r) {
        if (!r.ok) { throw new Error("no catalog"); }
        return r.json();
      });
    ready.then(function (cat) {
      catalogs[want] = cat;
      lang = want;
      try { localStorage.setItem("dvonn-lang", want); } catch (e) { /* private mode */ }
      staticTexts();
      Object.keys(tables).forEach(function (n) { draw(tables[n].entry); });
      drawResults();
      counts();
    }).catch(function () { pick.value = lang; });
  });

  /* ---------------------------------------------------------------- a table's card */
  function svg(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function html(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  var box = (function () {
    var xs = cfg.cells.map(function (c) { return c[1]; });
    var ys = cfg.cells.map(function (c) { return c[2]; });
    var pad = R + 2;
    return [Math.min.apply(null, xs) - pad, Math.min.apply(null, ys) - pad,
      Math.max.apply(null, xs) - Math.min.apply(null, xs) + 2 * pad,
      Math.max.apply(null, ys) - Math.min.apply(null, ys) + 2 * pad].join(" ");
  })();

  function card(name) {
    var el = html("article", "table");
    el.setAttribute("data-table", name);
    var h = html("h2");
    h.appendChild(html("span", "name", name));
    h.appendChild(html("span", "status"));
    el.appendChild(h);
    var board = svg("svg", { "class": "board", viewBox: box, role: "img" });
    var cells = {};
    cfg.cells.forEach(function (c) {
      var g = svg("g", { "class": "cell", "data-cell": c[0], "data-stack": "",
        transform: "translate(" + c[1] + " " + c[2] + ")" });
      g.appendChild(svg("polygon", { "class": "hex", points: cfg.hex }));
      g.appendChild(svg("g", { "class": "pile" }));
      board.appendChild(g);
      cells[c[0]] = g;
    });
    el.appendChild(board);
    var players = html("p", "players");
    ["w", "b"].forEach(function (s) {
      var span = html("span", s);
      span.appendChild(html("span", "pname"));
      span.appendChild(html("span", "score"));
      players.appendChild(span);
    });
    el.appendChild(players);
    el.appendChild(html("p", "turn"));
    var result = html("p", "result");
    result.hidden = true;
    el.appendChild(result);
    var a = html("a", "record");
    a.href = "/api/record/" + encodeURIComponent(name);
    a.setAttribute("download", "");
    el.appendChild(a);
    return { el: el, cells: cells, seq: -1, entry: null };
  }

  function drawPile(g, stack) {
    var pile = g.lastChild;
    while (pile.firstChild) { pile.removeChild(pile.firstChild); }
    if (!stack) { return; }
    var top = stack.charAt(stack.length - 1);
    pile.appendChild(svg("circle", { "class": "piece " + top, r: (R * 0.72).toFixed(1) }));
    if (top !== "r" && stack.indexOf("r") >= 0) {
      pile.appendChild(svg("circle", { "class": "dvonn", r: (R * 0.17).toFixed(1),
        cy: (-R * 0.5).toFixed(1) }));
    }
    if (stack.length > 1) {  /* big enough to read on a phone (CSS: .height) */
      pile.appendChild(svg("text", { "class": "height " + top, y: (R * 0.3).toFixed(1) },
        String(stack.length)));
    }
  }

  function turnText(s) {
    if (s.phase === "over") { return t("Game over"); }
    if (s.phase === "placing") {
      return t(SIDE[s.turn] + " to place " + (s.piece_to_place === "r" ? "a DVONN piece" : "a piece"));
    }
    return t(SIDE[s.turn] + " to move");
  }

  function draw(entry) {
    var name = entry.name;
    var c = tables[name];
    if (!c) {
      c = tables[name] = card(name);
      document.getElementById("tables").appendChild(c.el);
    }
    c.entry = entry;
    c.seq = entry.seq;
    var el = c.el;
    var s = entry.state;
    el.setAttribute("data-status", entry.status);
    el.setAttribute("data-playing", playing(entry) ? "1" : "0");
    el.setAttribute("data-seq", String(entry.seq));
    setText(el.querySelector(".status"), entry.status === "left" ? t("no longer connected") :
      s && s.phase === "over" ? t("finished") : t("playing"));
    var stacks = (s && s.stacks) || {};
    var last = (s && s.last_move) || {};
    Object.keys(c.cells).forEach(function (cell) {
      var g = c.cells[cell];
      var stack = typeof stacks[cell] === "string" ? stacks[cell] : "";
      if (g.getAttribute("data-stack") !== stack) {
        g.setAttribute("data-stack", stack);
        drawPile(g, stack);
      }
      g.classList.toggle("last", cell === last.to || cell === last.from);
    });
    var players = (s && s.players) || {};
    var score = (s && s.score) || {};
    setText(el.querySelector(".w .pname"), sideName(players.white, players.black, "w"));
    setText(el.querySelector(".b .pname"), sideName(players.white, players.black, "b"));
    setText(el.querySelector(".w .score"), String(score.white || 0));
    setText(el.querySelector(".b .score"), String(score.black || 0));
    el.setAttribute("data-phase", s ? s.phase : "");
    el.setAttribute("data-ply", s ? String(s.ply) : "");
    setText(el.querySelector(".turn"), s ? turnText(s) + " · " + t("ply {n}", { n: s.ply }) : "");
    var result = el.querySelector(".result");
    if (s && s.winner) {
      var w = score.white || 0, b = score.black || 0;
      setText(result, s.winner === "tie" ? t("Tie, {w} to {b}", { w: w, b: b }) :
        t("{name} wins, {high} to {low}", { name: sideName(players.white, players.black,
          s.winner),
          high: Math.max(w, b), low: Math.min(w, b) }));
      result.hidden = false;
    } else {
      result.hidden = true;
      setText(result, "");
    }
    var a = el.querySelector(".record");
    a.hidden = !s;
    setText(a, t("Download the record"));
    a.setAttribute("download", cfg.club + "-" + name + ".txt");
  }

  /* Still playing: connected and its game not over. */
  function playing(entry) {
    return entry.status === "online" && !!entry.state && entry.state.phase !== "over";
  }
  /* Tables still playing first, then finished games, then tables gone mid-game; by name. */
  function rank(entry) {
    return playing(entry) ? 0 : entry.state && entry.state.phase === "over" ? 1 : 2;
  }
  function order() {
    var list = document.getElementById("tables");
    var names = Object.keys(tables).sort(function (a, b) {
      return rank(tables[a].entry) - rank(tables[b].entry) || (a < b ? -1 : a > b ? 1 : 0);
    });
    names.forEach(function (n, i) {
      var el = tables[n].el;
      if (list.children[i] !== el) { list.insertBefore(el, list.children[i] || null); }
    });
  }

  function counts() {
    var names = Object.keys(tables);
    var live = names.filter(function (n) { return playing(tables[n].entry); }).length;
    var all = tn("of {n} table", "of {n} tables", names.length, { n: names.length });
    setText(document.getElementById("count"), names.length ? tn("{live} {of_tables} playing",
      "{live} {of_tables} playing", live, { live: live, of_tables: all }) : "");
    document.getElementById("empty").hidden = names.length > 0;
    order();
  }

  /* ---------------------------------------------------------------- standings, games */
  function drawResults() {
    var body = document.querySelector("#standings tbody");
    while (body.firstChild) { body.removeChild(body.firstChild); }
    results.standings.forEach(function (row) {
      var tr = html("tr");
      tr.setAttribute("data-player", row.player);
      if (row.side) { tr.setAttribute("data-side", row.side); }
      var who = row.side ? withColour(playerName(row.player, row.side), row.side) : row.player;
      [row.place, who, row.games, row.points, row.pieces].forEach(function (v) {
        tr.appendChild(html("td", "", String(v)));
      });
      body.appendChild(tr);
    });
    var list = document.getElementById("games");
    while (list.firstChild) { list.removeChild(list.firstChild); }
    results.games.forEach(function (g) {
      var li = html("li");
      li.setAttribute("data-game", g.table + "/" + g.key);
      li.appendChild(html("span", "", g.table + ": " + sideName(g.white, g.black, "w") + " – " +
        sideName(g.white, g.black, "b") + " " + g.score.white + ":" + g.score.black + " "));
      var a = html("a", "record", t("record"));
      a.href = "/api/record/" + encodeURIComponent(g.table) + "/" + encodeURIComponent(g.key);
      a.setAttribute("download", cfg.club + "-" + g.table + "-" + g.key + ".txt");
      li.appendChild(a);
      list.appendChild(li);
    });
  }

  /* ---------------------------------------------------------------- live updates */
  function live(on) {
    document.getElementById("live").classList.toggle("on", on && brokerUp);
    document.body.setAttribute("data-live", on && brokerUp ? "1" : "0");
  }
  function onTable(entry) {
    var c = tables[entry.name];
    if (c && entry.seq < c.seq) { return; }  // older than what is shown
    draw(entry);
    counts();
  }
  function connect() {
    var source = new EventSource("/api/events");
    source.addEventListener("club", function (ev) {
      var club = JSON.parse(ev.data);
      brokerUp = club.broker;
      var seen = {};
      club.tables.forEach(function (entry) { seen[entry.name] = true; onTable(entry); });
      Object.keys(tables).forEach(function (n) {
        if (!seen[n]) { tables[n].el.remove(); delete tables[n]; }
      });
      results = { standings: club.standings, games: club.games };
      drawResults();
      counts();
      live(true);
    });
    source.addEventListener("table", function (ev) { onTable(JSON.parse(ev.data)); });
    source.addEventListener("results", function (ev) {
      results = JSON.parse(ev.data);
      drawResults();
    });
    source.addEventListener("broker", function (ev) {
      brokerUp = JSON.parse(ev.data).connected;
      live(true);
    });
    source.onopen = function () { live(true); };
    source.onerror = function () { live(false); };
  }
  try {
    var saved = localStorage.getItem("dvonn-lang");
    if (saved && saved !== lang && (cfg.languages || []).indexOf(saved) >= 0) {
      pick.value = saved;
      pick.dispatchEvent(new Event("change"));
    }
  } catch (e) { /* private mode */ }
  staticTexts();
  counts();
  connect();
  window.dvonnBroadcast = { tables: tables };
})();
