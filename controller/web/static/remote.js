/* dvonn-board: a remote player's page (/remote) and the invitations on the paired phones' page.
   app.js draws the table's board, actions, score and result from the event stream; this script
   adds, on /remote, the seat: join with the invitation's code, click to place (one click) or
   to move (the stack, then where it lands), and what the table is waiting for. The server
   checks every action (controller/web/remote.py); the person at the table carries it out.
   Contract for tests: body[data-remote-side], #remote-status, #remote-join,
   body[data-remote-offered], #invitations li[data-side] [data-invite]. */
(function () {
  "use strict";
  var d = window.dvonn;
  if (!d) { return; }
  var info = d.info;
  var t = d.t;
  var SIDE = { w: "White", b: "Black" };

  function send(path, body) {  // every control request says it comes from this page
    var headers = { "X-Dvonn-Request": "1" };
    if (body !== undefined) { headers["Content-Type"] = "application/json"; }
    return fetch(path, { method: "POST", credentials: "same-origin", headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body) });
  }
  function notice(msg) {
    var n = document.getElementById("notice");
    n.textContent = msg;
    n.hidden = !msg;
  }
  function node(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  var livePanel = document.getElementById("live-panel");

  /* ------------------------------------------------------------ invitations (paired phones) */
  function invitations() {
    var box = node("section", { id: "invitations", "class": "invitations" });
    var head = node("h2", {}, "");
    var list = node("ul", {});
    box.appendChild(head);
    box.appendChild(list);
    var controls = document.getElementById("controls");
    controls.parentNode.insertBefore(box, controls.nextSibling);  // after the buttons
    var last = 0;
    function load() {
      last = Date.now();
      fetch("/api/remote/invitations", { credentials: "same-origin" }).then(function (r) {
        return r.ok ? r.json() : { invitations: [] };
      }).then(function (body) {
        head.textContent = t("Remote players");
        while (list.firstChild) { list.removeChild(list.firstChild); }
        body.invitations.forEach(function (inv) {
          var li = node("li", { "data-side": inv.side });
          var side = t(SIDE[inv.side]);
          if (inv.path) {
            var url = window.location.origin + inv.path;
            li.appendChild(document.createTextNode(t("Invitation for {side} (send it to the remote " +
              "player; it works once):", { side: side }) + " "));
            li.appendChild(node("code", { "data-invite": url }, url));
          } else {
            li.appendChild(document.createTextNode(inv.joined ?
              t("{side} is played by the remote player.", { side: side }) :
              t("{side}: the invitation was used.", { side: side })));
          }
          var b = node("button", { type: "button", "class": "renew" }, t("New invitation"));
          b.addEventListener("click", function () {
            send("/api/remote/invitations/" + inv.side + "/renew").then(load);
          });
          li.appendChild(document.createTextNode(" "));
          li.appendChild(b);
          list.appendChild(li);
        });
        box.hidden = !body.invitations.length;
      }).catch(function () { /* shown again on the next state */ });
    }
    load();
    d.onRender(function () { if (Date.now() - last > 10000) { load(); } });
    d.onLanguage(load);
  }

  /* ------------------------------------------------------------ the remote player's page */
  function remotePage(seat) {
    var box = node("section", { id: "remote", "class": "remote" });
    var title = node("h2", { id: "remote-title" }, "");
    var status = node("p", { id: "remote-status", "class": "message" }, "");
    box.appendChild(title);
    box.appendChild(status);
    livePanel.insertBefore(box, livePanel.firstChild);
    var side = seat.side;
    if (window.location.search && window.history.replaceState) {
      window.history.replaceState(null, "", "/remote");  // the code leaves the address bar
    }
    if (!side) {
      if (!seat.invite) {
        status.setAttribute("data-i18n", "This page plays no seat: open the invitation the " +
          "table gave you.");
        status.textContent = t("This page plays no seat: open the invitation the table gave you.");
        return;
      }
      title.setAttribute("data-i18n", "An invitation to play");
      title.textContent = t("An invitation to play");
      var invited = seat.invited;  // the colour the invitation plays ("": wrong or used)
      var sayInvite = function () {  // in the words of the page's switch, with the colour
        status.textContent = invited ?
          t("Someone at this table invites you to play {side}.", { side: t(SIDE[invited]) }) :
          t("this invitation is wrong or was used already: ask the table for a new one");
      };
      sayInvite();
      d.onLanguage(sayInvite);
      if (!invited) { return; }
      var join = node("button", { type: "button", id: "remote-join", "data-i18n": "Take the seat" },
        t("Take the seat"));
      box.appendChild(join);
      join.addEventListener("click", function () {
        join.disabled = true;
        send("/api/remote/join", { code: seat.invite }).then(function (r) {
          return r.json().then(function (body) {
            if (r.ok) { window.location.replace("/remote"); return; }
            join.disabled = false;
            notice(d.said(body) || t("refused ({code})", { code: r.status }));
          });
        }).catch(function () { join.disabled = false; notice(t("the table did not answer")); });
      });
      return;
    }
    document.body.setAttribute("data-remote-side", side);
    var now = null;  // the seat's status (/api/remote/status)
    var key = "";
    var picked = null;
    var asking = null;

    function sources() {
      var out = {};
      ((now && now.moves) || []).forEach(function (m) {
        if (m.length === 4) { out[m.slice(0, 2)] = true; }
      });
      return out;
    }
    function landings(from) {
      return ((now && now.moves) || []).filter(function (m) {
        return m.length === 4 && m.slice(0, 2) === from;
      }).map(function (m) { return m.slice(2); });
    }
    /* the table's roles, with this page's own over them: the picked stack and its landing
       spaces, or the stacks that may move */
    function paint() {
      var state = d.state || {};
      var roles = {};
      var mine = now && !now.over && now.turn === side && !now.offered && now.ply === state.ply;
      if (mine && picked) {
        roles[picked] = "source";
        landings(picked).forEach(function (c) { roles[c] = "destination"; });
      } else if (mine && state.phase === "moving") {
        Object.keys(sources()).forEach(function (c) { roles[c] = "movable"; });
      }
      if (!document.getElementById("review").hidden) { return; }  // review.js shows a game
      Array.prototype.forEach.call(document.querySelectorAll("[data-cell]"), function (g) {
        var name = g.getAttribute("data-cell");
        var role = roles[name] || (state.roles || {})[name] || "";
        if (g.getAttribute("data-role") !== role) { g.setAttribute("data-role", role); }
      });
    }
    function say() {
      var state = d.state || {};
      var text;
      title.textContent = t("You play {side}", { side: t(SIDE[side]) });
      if (!now) {
        text = t("waiting for the table…");
      } else if (now.over || state.phase === "over") {
        text = t("The game is over.");
      } else if (now.offered) {
        text = t("Waiting for the table to carry out {action}.", { action: now.offered });
      } else if (now.turn !== side) {
        text = t("Waiting for {side} at the table.", { side: t(SIDE[now.turn]) });
      } else if (now.pass) {
        text = t("You cannot act: the table passes for you.");
      } else if (picked) {
        text = t("{cell} picked: click where it lands, or {cell} again to put it back.",
          { cell: picked });
      } else if (state.phase === "placing") {
        text = t("Your turn: click the space for your piece.");
      } else {
        text = t("Your turn: click one of your stacks, then where it lands.");
      }
      if (status.textContent !== text) { status.textContent = text; }
      var mine = now && !now.over && now.turn === side && !now.offered && !now.pass &&
        now.ply === state.ply;
      document.body.setAttribute("data-remote-offered", (now && now.offered) || "");
      document.body.setAttribute("data-remote-mine", mine ? "1" : "");
      // the table's own line says it waits for this side ("waiting for Black (remote)"):
      // beside "Your turn" it reads as a contradiction; the line above says it for this page
      document.getElementById("message").hidden = !!(now && !now.over && now.turn === side);
    }
    function refresh() {
      var asked = fetch("/api/remote/status", { credentials: "same-origin" }).then(function (r) {
        if (r.status === 403) { window.location.replace("/remote"); return null; }  // renewed
        return r.ok ? r.json() : null;
      }).then(function (body) {
        if (asking !== asked) { return; }  // a newer question is on its way
        asking = null;
        if (body) {
          if (!now || body.ply !== now.ply || body.offered !== now.offered) { picked = null; }
          now = body;
          window.dvonn.remote = body;
        }
        paint();
        say();
      }).catch(function () { asking = null; });
      asking = asked;
    }
    function offer(action) {
      var ply = now.ply;
      picked = null;
      send("/api/remote/offer", { ply: ply, action: action }).then(function (r) {
        return r.json().then(function (body) {
          notice(r.ok ? "" : (d.said(body) || t("refused ({code})", { code: r.status })));
          refresh();
        });
      }).catch(function () { notice(t("the table did not answer")); });
    }
    function click(cell) {
      var state = d.state || {};
      if (!now || now.over || now.turn !== side || now.ply !== state.ply) {
        notice(now && now.turn !== side ? t("It is not your turn.") : t("wait: the table is " +
          "being set right"));
        return;
      }
      if (now.offered) {
        notice(t("Waiting for the table to carry out {action}.", { action: now.offered }));
        return;
      }
      notice("");
      if (state.phase === "placing") {
        if (now.moves.indexOf(cell) >= 0) { offer(cell); } else {
          notice(t("{cell} is occupied", { cell: cell }));
        }
        return;
      }
      if (picked === cell) {
        picked = null;
      } else if (picked && landings(picked).indexOf(cell) >= 0) {
        offer(picked + cell);
        return;
      } else if (sources()[cell]) {
        picked = cell;
      } else if (picked) {
        notice(t("{cell} is not a landing space for {source}", { cell: cell, source: picked }));
      } else {
        notice(t("the stack on {cell} cannot move now", { cell: cell }));
      }
      paint();
      say();
    }
    Array.prototype.forEach.call(document.querySelectorAll("[data-cell]"), function (g) {
      g.addEventListener("click", function () { click(g.getAttribute("data-cell")); });
    });
    function keyOf(s) {  // a new position (or game): ask the table again
      return [s.game_id, s.ply, s.phase, (s.actions || []).join(" ")].join(":");
    }
    d.onRender(function (s) {
      var k = keyOf(s);
      if (k !== key) { key = k; refresh(); } else { paint(); say(); }
    });
    d.onLanguage(function () { say(); });
    if (d.state) { key = keyOf(d.state); }
    refresh();
  }

  if (info.remote) {
    remotePage(info.remote);
  } else if (info.invitations) {
    invitations();
  }
})();
