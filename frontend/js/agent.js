// The /agent page: WebSocket chat with streamed answers, tool progress and server-rendered cards (DESIGN §6).
"use strict";
(function () {
  const Ctx = window.AgentContext;
  const t = window.AgentTexts.t;
  const params = new URLSearchParams(window.location.search);
  // Fixed for this page load (DESIGN §7): from the URL, or the stored one of a conversation opened from history.
  let context = Ctx.buildUIContext(params);
  let contextRejected = false; // after an invalid_context error the page goes on without the object context
  const start = Ctx.initialConversation(params, sessionStorage, Ctx.navigationType());
  let conversationId = start.id;
  let loaded = Promise.resolve();
  let socket = null;
  let retryDelay = 500;
  let lastSentText = "";
  const queue = [];
  // Messages sent on a socket whose turn has not ended yet (client id → text): after a reconnect the page asks
  // what became of them (`resume` with their ids, issue 31), so each is answered or offered for sending again.
  const outstanding = new Map();

  const $ = (id) => document.getElementById(id);
  const messages = $("messages");
  const envSelect = $("env-select");

  function describeContext() {
    // objectName comes from a URL anyone can craft: shown as the page's label (textContent), never as a fact.
    const el = $("context-summary");
    if (contextRejected) {
      el.textContent = t("context_rejected");
      return;
    }
    if (!context || !context.objectType) {
      el.textContent = t("no_context");
      return;
    }
    el.textContent = `${t("object_" + context.objectType)} #${context.objectId || "?"}` +
      (context.objectName ? ` «${context.objectName}»` : "");
  }

  function envId() {
    return envSelect.value || null;
  }

  function currentContext() {
    return Ctx.withEnv(contextRejected ? null : context, envId());
  }

  function selectEnv(id) {
    // Only environments the server lists are selectable; an unknown envId from the URL counts as none picked.
    envSelect.value = id && [...envSelect.options].some((o) => o.value === id) ? id : "";
  }

  let unavailableNoted = false;
  function noteUnavailable() {
    if (unavailableNoted) return;
    unavailableNoted = true;
    const el = appendText(t("context_unavailable"), "msg-system");
    el.dataset.testid = "context-unavailable";
  }

  function dropGreeting() {
    const greeting = $("greeting");
    if (greeting) greeting.remove();
  }

  // An empty chat's example questions (templates/pages/agent.html): one click asks it (issue 30).
  messages.addEventListener("click", (ev) => {
    const example = ev.target.closest("[data-example]");
    if (!example) return;
    $("input").value = example.textContent.trim();
    $("composer").requestSubmit();
  });

  // The history's search box: the list from GET /api/agent/conversations/?q= (titles and questions).
  let searchTimer = null;
  $("history-search").addEventListener("input", (ev) => {
    clearTimeout(searchTimer);
    const query = ev.target.value;
    searchTimer = setTimeout(async () => {
      const resp = await fetch(`/api/agent/conversations/?q=${encodeURIComponent(query)}`, { credentials: "same-origin" });
      if (!resp.ok) return;
      $("history").innerHTML = (await resp.json()).html;
      if (conversationId) markHistory(conversationId);
    }, 250);
  });

  function markHistory(id, title) {
    const list = $("history");
    let item = list.querySelector(`[data-conversation="${id}"]`);
    if (!item && title !== undefined) {
      const empty = list.querySelector(".muted");
      if (empty) empty.remove();
      const li = document.createElement("li");
      item = document.createElement("a");
      item.href = `/agent?conversation=${id}`;
      item.dataset.conversation = String(id);
      const heading = document.createElement("span");
      heading.className = "history-title";
      heading.textContent = title || "—";
      item.appendChild(heading);
      const label = context && context.objectType ? `${t("object_" + context.objectType)} #${context.objectId || "?"}` : "";
      if (label) {
        const object = document.createElement("span");
        object.className = "history-object";
        object.textContent = label + " ";
        item.prepend(object);
      }
      li.appendChild(item);
      list.prepend(li);
    }
    list.querySelectorAll(".current").forEach((el) => el.classList.remove("current"));
    if (item) item.closest("li").classList.add("current");
  }

  function append(html, cls) {
    const wrap = document.createElement("div");
    wrap.className = "entry " + (cls || "");
    wrap.innerHTML = html;
    messages.appendChild(wrap);
    messages.scrollTop = messages.scrollHeight;
    return wrap;
  }

  function appendText(text, cls) {
    const wrap = document.createElement("div");
    wrap.className = "entry " + (cls || "");
    const inner = document.createElement("div");
    inner.className = "msg " + (cls || "");
    inner.textContent = text;
    wrap.appendChild(inner);
    messages.appendChild(wrap);
    messages.scrollTop = messages.scrollHeight;
    return wrap;
  }

  function bubbleFor(messageId) {
    let el = messages.querySelector(`[data-message-id="${messageId}"]`);
    if (!el) {
      el = appendText("", "msg-assistant streaming");
      el.dataset.messageId = messageId;
      el.dataset.testid = "assistant-message";
    }
    return el;
  }

  /** Superset's own text about a failure, folded under the sentence the user reads (issue 30 item 3). */
  function addDetail(line, detail) {
    if (!detail) return;
    const box = document.createElement("details");
    box.className = "upstream-detail";
    box.dataset.testid = "upstream-detail";
    const summary = document.createElement("summary");
    summary.textContent = t("superset_said");
    const text = document.createElement("pre");
    text.textContent = detail;
    box.append(summary, text);
    line.appendChild(box);
  }

  /** The result view the server rendered (a SQL result as a table, DESIGN §6) right under its tool line. */
  function showResult(line, html) {
    const wrap = document.createElement("div");
    wrap.className = "entry tool-result-entry";
    wrap.innerHTML = html;
    line.after(wrap);
    messages.scrollTop = messages.scrollHeight;
  }

  const handlers = {
    conversation(f) {
      const isNew = conversationId !== f.conversation_id;
      conversationId = f.conversation_id;
      document.body.dataset.conversationId = String(conversationId);
      Ctx.rememberConversation(params, sessionStorage, conversationId);
      markHistory(conversationId, isNew ? lastSentText.slice(0, 80) : undefined);
      if (f.provider) $("provider").textContent = f.provider;
      if (f.context_status === "unavailable") noteUnavailable();
    },
    token(f) {
      const el = bubbleFor(f.message_id);
      el.firstChild.textContent += f.text;
      messages.scrollTop = messages.scrollHeight;
    },
    message(f) {
      if (f.message_id == null) { append(f.html, "msg-system"); return; }
      if (!f.text.trim()) {
        // Nothing to show: a call the model wrote as text runs as a call (DESIGN §5 step 5), so the bubble that
        // streamed its JSON goes, and no empty bubble is left (issue 16).
        const streamed = messages.querySelector(`[data-message-id="${f.message_id}"]`);
        if (streamed) streamed.remove();
        return;
      }
      const el = bubbleFor(f.message_id);
      el.innerHTML = f.html;
      el.classList.remove("streaming");
      el.setAttribute("data-testid", "assistant-message");
      el.dataset.final = "1";
      if (f.ask_without_page) offerWithoutPage(el, f.ask_without_page, f.ask_without_page_label);
    },
    tool_started(f) {
      const el = appendText(`⏳ ${f.title || f.tool}…`, "tool-status");
      el.dataset.callId = f.call_id;
      el.dataset.title = f.title || f.tool;
      el.title = f.tool; // the tool's own name on hover, for engineers
    },
    tool_finished(f) {
      const el = messages.querySelector(`[data-call-id="${f.call_id}"]`) || appendText("", "tool-status");
      const name = el.dataset.title || f.title || f.tool;
      el.title = f.tool;
      // a moot call (nothing to roll back) is no failure: its reason is in the answer
      el.firstChild.textContent = `${f.ok ? "✓" : f.moot ? "–" : "✗"} ${name} · ${t("duration_ms", { ms: f.duration_ms })}` +
        (f.summarised ? ` · ${t("summarised")}` : "");
      if (f.task_id && window.AgentTasks) window.AgentTasks.track(f.task_id, el); // background task progress
      if (f.html) showResult(el, f.html);
    },
    permission_denied(f) { window.AgentCards.show(f); },
    confirm_required(f) { window.AgentCards.show(f); },
    cancelled(f) { window.AgentCards.show(f); },
    card_state(f) { window.AgentCards.show(f); },
    // What became of a message this page sent (issue 31): its turn ended here, or a resume found it answered,
    // waiting on a card, still running elsewhere, interrupted, failed or never received.
    turn_state(f) {
      const text = f.text || outstanding.get(f.client_id);
      if (f.state === "running") return;
      if (!outstanding.has(f.client_id) && f.state !== "done") return; // told already
      outstanding.delete(f.client_id);
      if (f.conversation_id && !conversationId) {
        conversationId = f.conversation_id;
        document.body.dataset.conversationId = String(conversationId);
        Ctx.rememberConversation(params, sessionStorage, conversationId);
      }
      if (f.state === "done" && f.answer) {
        handlers.message({ message_id: f.answer.message_id, text: f.answer.text, html: f.answer.html });
      } else if (f.state === "interrupted" || f.state === "failed" || f.state === "not_received") {
        const shown = appendText(`⚠ ${f.message}`, "msg-error");
        shown.dataset.testid = "turn-" + f.state;
        if (text) offerResend(shown, text);
      }
    },
    error(f) {
      // A failed tool call is marked on its own status line (the agent explains it in its answer).
      const line = f.call_id ? messages.querySelector(`[data-call-id="${f.call_id}"]`) : null;
      if (line) {
        line.classList.add("tool-failed");
        line.firstChild.textContent += ` — ${f.message}`;
        addDetail(line, f.detail);
        return;
      }
      if (f.client_id) outstanding.delete(f.client_id);
      const shown = appendText(`⚠ ${f.message}`, "msg-error");
      addDetail(shown, f.detail);
      if (f.text) offerResend(shown, f.text); // busy, or a message whose turn failed: one click sends it again
      if (f.code === "invalid_context" && !contextRejected) {
        contextRejected = true;
        describeContext();
        appendText(t("context_dropped"), "msg-system");
      }
    },
  };

  // A button that sends `text` again once, as a new message (a new id), with the context `contextOf()` gives,
  // then goes away.
  // `label`: a key of the page's texts; `said`: the label as the server wrote it (in the answer's language).
  function sendAgainButton(testid, label, text, contextOf, echo, said) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "resend";
    button.dataset.testid = testid;
    button.textContent = said || t(label);
    button.addEventListener("click", () => {
      button.remove();
      if (echo) appendText(text, "msg-user");
      sendMessage(text, contextOf());
    }, { once: true });
    return button;
  }

  // A message the server refused for load (`busy`), whose turn failed or was interrupted, or that never reached
  // the server: one click sends it again.
  function offerResend(line, text) {
    line.appendChild(document.createTextNode(" "));
    line.appendChild(sendAgainButton("resend", "resend", text, currentContext, false));
  }

  // An answer another page's tool would serve (issue 29 item 2): one click sends the same question again without
  // the page's object (the environment picked stays), so the server offers the tools of a page without one.
  function offerWithoutPage(bubble, text, label) {
    if (bubble.querySelector("[data-testid=ask-without-page]")) return;
    const bare = () => ({ contextVersion: 1, objectType: null, objectId: null, objectName: null, envId: envId(), route: null });
    bubble.appendChild(sendAgainButton("ask-without-page", "ask_without_page", text, bare, true, label));
  }

  function newClientId() {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes); // also on plain-HTTP pages, where crypto.randomUUID is missing
    return "m" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function sendMessage(text, context) {
    lastSentText = text;
    send({ type: "user_message", conversation_id: conversationId, text: text,
      context: context === undefined ? currentContext() : context, client_id: newClientId() });
  }

  function send(frame) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      if (frame.client_id) outstanding.set(frame.client_id, frame.text);
      socket.send(JSON.stringify(frame));
    } else {
      queue.push(frame);
    }
  }

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${window.location.host}/ws/agent/`);
    $("conn-state").textContent = t("connecting");
    socket.onopen = () => {
      retryDelay = 500;
      $("conn-state").textContent = t("online");
      document.body.dataset.ws = "open";
      // Pending cards come back after the stored messages are on the page, so they sit below them; with them,
      // what became of the messages sent on the lost socket (not those queued while it was away: sent now).
      const open = socket;
      const asked = [...outstanding.keys()];
      loaded.then(() => {
        if ((conversationId || asked.length) && open.readyState === WebSocket.OPEN) {
          open.send(JSON.stringify({ type: "resume", conversation_id: conversationId, client_ids: asked }));
        }
      });
      while (queue.length) send(queue.shift());
    };
    socket.onmessage = (ev) => {
      let frame;
      try { frame = JSON.parse(ev.data); } catch (e) { return; }
      const handler = handlers[frame.event];
      if (handler) handler(frame);
    };
    socket.onclose = (ev) => {
      document.body.dataset.ws = "closed";
      if (ev.code === 4401) {
        $("conn-state").textContent = t("sign_in_needed");
        window.location.href = "/accounts/login/?next=" + encodeURIComponent(window.location.pathname + window.location.search);
        return;
      }
      $("conn-state").textContent = t("reconnecting");
      // 4429: the user has too many chat tabs open (the error frame before it says so): try again much later.
      setTimeout(connect, ev.code === 4429 ? 30000 : retryDelay);
      retryDelay = Math.min(retryDelay * 2, 10000);
    };
  }

  /** Show a stored conversation; one opened from history also brings back its stored context (and env). */
  async function loadConversation(id, adoptContext) {
    const resp = await fetch(`/api/agent/conversations/${id}/`, { credentials: "same-origin" });
    if (!resp.ok) {
      appendText(t("conversation_missing"), "msg-error");
      conversationId = null;
      return;
    }
    const data = await resp.json();
    if (adoptContext) {
      context = data.ui_context || null;
      selectEnv(context && context.envId);
      describeContext();
      if (!data.context_available) noteUnavailable();
    }
    if ((data.timeline || data.messages || []).length) dropGreeting();
    // The timeline is what the chat showed: messages, system lines, tool lines and decided cards, in order.
    for (const e of data.timeline || data.messages.map((m) => ({ kind: "message", ...m }))) {
      if (e.kind === "card") {
        window.AgentCards.show({ confirmation_id: e.id, html: e.html });
      } else if (e.kind === "tool") {
        const mark = e.ok ? "✓" : e.moot ? "–" : "✗"; // a moot call (nothing to roll back) is no failure, as live
        const el = appendText(`${mark} ${e.title}` + (e.message ? ` — ${e.message}` : ""), "tool-status");
        el.title = e.tool;
        if (!e.ok && !e.moot) el.classList.add("tool-failed");
        addDetail(el, e.detail);
        if (e.html) showResult(el, e.html);
      } else {
        const cls = e.role === "user" ? "msg-user" : e.role === "system" ? "msg-system" : "msg-assistant";
        // An answer comes as HTML the server rendered and sanitised (Markdown, DESIGN §6); the rest as text.
        const el = e.html ? append(e.html, cls) : appendText(e.content, cls);
        el.dataset.testid = "history-message";
        if (e.role === "assistant") el.dataset.messageId = e.id; // a late final frame replaces, not repeats, it
      }
    }
    markHistory(id);
    document.body.dataset.conversationId = String(id);
  }

  window.AgentCards.attach(messages, send);

  // «Копировать» of a SQL result: the drawn rows as tab-separated text (pastes into a spreadsheet as cells).
  messages.addEventListener("click", (ev) => {
    const button = ev.target.closest("[data-action=copy-table]");
    if (!button) return;
    const table = button.closest(".tool-result").querySelector("table");
    const tsv = [...table.rows].map((row) => [...row.cells].map((c) => c.innerText.trim()).join("\t")).join("\n");
    const done = () => {
      button.textContent = t("copied");
      setTimeout(() => { button.textContent = t("copy"); }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(tsv).then(done, () => {});
  });

  $("composer").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = $("input");
    const text = input.value.trim();
    if (!text) return;
    dropGreeting();
    appendText(text, "msg-user");
    input.value = "";
    loaded.then(() => sendMessage(text));
  });
  $("input").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); $("composer").requestSubmit(); }
  });

  selectEnv(context && context.envId);
  describeContext();
  if (conversationId) {
    loaded = loadConversation(conversationId, start.source === "history").catch(() => {
      appendText(t("conversation_failed"), "msg-error");
    });
  }
  document.body.dataset.conversationSource = start.source;
  connect();
})();
