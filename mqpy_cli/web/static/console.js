// The mqpy web console: every figure and every action through the server's own REST API
// (IBM's v2 paths), refreshed every few seconds; nothing is loaded from anywhere else.
"use strict";

const REST = "/ibmmq/rest/v2";
const CSRF = { "ibm-mq-rest-csrf-token": "console" };
const params = new URLSearchParams(location.search);
const REFRESH_MS = Math.max(500, Number(params.get("refresh")) || 3000);
const HISTORY = 60;  // chart points kept
const COLOURS = ["#0f62fe", "#da1e28", "#24a148", "#8a3ffc", "#ff832b", "#007d79"];

const state = { loggedIn: false, qmgr: null, tab: "qmgrs-tab", timer: null, history: [],
                lastDepths: null, lastChannelMsgs: null, lastTime: null, queueRates: {},
                queueFiles: {} };

const $ = (sel) => document.querySelector(sel);

// what the Content-Security-Policy refused, for the browser tests to see
window.cspViolations = [];
document.addEventListener("securitypolicyviolation",
                          (e) => window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "style") Object.assign(node.style, v);  // CSSOM: allowed by the CSP
    else if (k === "className") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

// --------------------------------------------------------------------------- REST calls

// An IBM error body or a failed command response as the AMQ / MQWB message text.
function errorText(body) {
  if (body && body.error) return body.error.map((e) => e.message).join("\n");
  if (body && body.commandResponse) {
    return body.commandResponse.filter((r) => r.completionCode !== 0)
      .map((r) => (r.message || r.text || []).join("\n")).join("\n");
  }
  return "";
}

async function call(method, path, { json, text, headers, none } = {}) {
  const h = { ...(headers || {}) };
  if (method !== "GET") Object.assign(h, CSRF);
  let body;
  if (json !== undefined) { h["Content-Type"] = "application/json"; body = JSON.stringify(json); }
  if (text !== undefined) { h["Content-Type"] = "text/plain;charset=utf-8"; body = text; }
  // the LtpaToken2 cookie POST /login set authenticates every call
  const r = await fetch(path, { method, headers: h, body, credentials: "same-origin" });
  const type = r.headers.get("content-type") || "";
  const data = type.includes("json") ? await r.json() : await r.text();
  // none: what a 404 of reason 2085 (nothing of that name) stands for
  if (none !== undefined && r.status === 404 && data.error && data.error[0].reasonCode === 2085) {
    return { data: none, headers: r.headers, status: r.status };
  }
  if (!r.ok) throw new Error(errorText(data) || `HTTP ${r.status}`);
  if (data && data.overallCompletionCode === 2) throw new Error(errorText(data));
  return { data, headers: r.headers, status: r.status };
}

function say(text, isError = false) {
  const m = $("#message");
  m.textContent = text;
  m.className = isError ? "error" : "";
}

async function act(what, fn) {
  try {
    await fn();
    say(what);
    await refresh();
  } catch (e) {
    say(e.message, true);
  }
}

const mqsc = (body) => call("POST", `${REST}/admin/action/qmgr/${enc(state.qmgr)}/mqsc`,
                            { json: { type: "runCommandJSON", ...body } });
const enc = encodeURIComponent;

// --------------------------------------------------------------------------- logging in

$("#login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const username = $("#login-user").value, password = $("#login-password").value;
  try {
    await call("POST", `${REST}/login`, { json: { username, password } });
    $("#login-password").value = "";
    const { data } = await call("GET", `${REST}/login`);
    const me = data.user[0];
    $("#who").textContent = `${me.name} (${me.role.join(", ")})`;
    $("#login-panel").hidden = true;
    $("#console").hidden = false;
    $("#logout").hidden = false;
    $("#login-error").textContent = "";
    state.loggedIn = true;
    await loadQmgrs();
    state.timer = setInterval(refresh, REFRESH_MS);
  } catch (e) {
    $("#login-error").textContent = e.message;
  }
});

$("#logout").addEventListener("click", async () => {
  clearInterval(state.timer);
  try {
    await call("DELETE", `${REST}/login`);
  } finally {
    location.reload();
  }
});

// --------------------------------------------------------------------------- tabs

for (const tab of document.querySelectorAll(".tab")) {
  tab.addEventListener("click", () => {
    for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t === tab);
    for (const p of document.querySelectorAll(".tab-panel")) p.hidden = p.id !== tab.dataset.tab;
    state.tab = tab.dataset.tab;
    refresh();
  });
}
$("#qmgr-select").addEventListener("change", (ev) => {
  state.qmgr = ev.target.value;
  state.history = [];
  state.lastDepths = null;
  refresh();
});
for (const box of document.querySelectorAll("#severities input, #show-system")) {
  box.addEventListener("change", refresh);
}

// --------------------------------------------------------------------------- queue managers

async function loadQmgrs() {
  const { data } = await call("GET", `${REST}/admin/qmgr?status=*`);
  const select = $("#qmgr-select");
  select.replaceChildren(...data.qmgr.map((q) => el("option", { value: q.name }, q.name)));
  if (!state.qmgr || !data.qmgr.some((q) => q.name === state.qmgr)) {
    const running = data.qmgr.find((q) => q.state === "running") || data.qmgr[0];
    state.qmgr = running ? running.name : null;
  }
  select.value = state.qmgr || "";
  $("#qmgrs tbody").replaceChildren(...data.qmgr.map((q) => {
    const s = q.status || {};
    return el("tr", { dataset: { qmgr: q.name } }, el("td", {}, q.name),
      el("td", { className: "state" }, q.state), el("td", {}, s.connectionCount ?? ""),
      el("td", {}, s.channelInitiatorState ?? ""), el("td", {}, s.commandServerState ?? ""),
      el("td", {}, s.started ?? ""));
  }));
}

// --------------------------------------------------------------------------- queues

async function queueRows() {
  const path = `${REST}/admin/qmgr/${enc(state.qmgr)}/queue?type=local` +
    "&attributes=storage.maximumDepth&status=*";
  const { data } = await call("GET", path);
  const system = $("#show-system").checked;
  return data.queue.filter((q) => system || !/^(SYSTEM|AMQ|MQWEB)\./.test(q.name))
    .map((q) => ({ name: q.name, depth: q.status.currentDepth,
                   max: q.storage.maximumDepth, age: q.status.oldestMessageAge,
                   input: q.status.openInputCount, output: q.status.openOutputCount }))
    .map((q) => ({ ...q, full: q.max ? q.depth / q.max : 0 }))
    .sort((a, b) => b.full - a.full || b.depth - a.depth || a.name.localeCompare(b.name));
}

// Each queue's MQPUT/MQPUT1 and MQGET rates, from the queue manager's resource-statistics
// publications ($SYS/MQ/INFO/QMGR/<qmgr>/Monitor/STATQ/<queue>/PUT and GET) the server
// subscribes to; a queue manager that publishes none gives no rates.
async function loadQueueRates() {
  try {
    const path = `/ibmmq/console/api/qmgr/${enc(state.qmgr)}/queuerates`;
    state.queueRates = (await call("GET", path)).data.queues;
  } catch (e) {
    state.queueRates = {};
  }
}

// Each queue's file size and the most it may grow to, in megabytes (DISPLAY QSTATUS CURFSIZE
// and CURMAXFS): IBM's REST API v2 has no JSON names for them in its queue resources, so they
// are asked for as IBM sends them, through the mqsc action.
async function loadQueueFiles() {
  try {
    const { data } = await mqsc({ command: "display", qualifier: "qstatus", name: "*",
                                  responseParameters: ["curfsize", "curmaxfs"] });
    state.queueFiles = Object.fromEntries(data.commandResponse
      .filter((r) => r.completionCode === 0 && r.parameters)
      .map((r) => [r.parameters.queue, { size: r.parameters.curfsize,
                                         max: r.parameters.curmaxfs }]));
  } catch (e) {
    state.queueFiles = {};
  }
}

function fileSize(name) {
  const f = state.queueFiles[name];
  return f ? el("td", { className: "file-size", title: `of at most ${f.max} MB` }, f.size)
    : el("td", { className: "file-size" }, "");
}

function perSecond(rates, key) {
  return rates && rates[key] !== null && rates[key] !== undefined ? rates[key].toFixed(1) : "";
}

function fullBar(full) {
  const pct = Math.min(100, Math.round(full * 1000) / 10);
  const inner = el("span", { style: { width: `${pct}%` },
                             className: pct >= 90 ? "full" : pct >= 60 ? "warn" : "" });
  return el("span", {}, el("span", { className: "bar" }, inner), ` ${pct}%`);
}

function button(label, cls, data, handler) {
  const b = el("button", { className: cls, dataset: data }, label);
  b.addEventListener("click", handler);
  return b;
}

function renderQueues(rows, rates) {
  $("#queues tbody").replaceChildren(...rows.map((q) => el("tr", { dataset: { queue: q.name } },
    el("td", {}, q.name), el("td", { className: "depth" }, q.depth), fileSize(q.name),
    el("td", {}, q.max),
    el("td", {}, fullBar(q.full)), el("td", {}, q.age < 0 ? "" : q.age),
    el("td", {}, `${q.input}/${q.output}`),
    el("td", {}, rates[q.name] === undefined ? "" : rates[q.name].toFixed(1)),
    el("td", { className: "put-rate" }, perSecond(state.queueRates[q.name], "putRate")),
    el("td", { className: "get-rate" }, perSecond(state.queueRates[q.name], "getRate")),
    el("td", {},
      button("Put", "put", { queue: q.name }, () => putMessage(q.name)),
      button("Browse", "browse", { queue: q.name }, () => browse(q.name)),
      button("Clear", "clear", { queue: q.name }, () => clearQueue(q.name)),
      button("Delete", "delete", { queue: q.name }, () => deleteQueue(q.name))))));
}

$("#define-queue").addEventListener("click", () => {
  const name = $("#new-queue-name").value.trim();
  if (!name) return;
  act(`Queue ${name} defined.`, () =>
    call("POST", `${REST}/admin/qmgr/${enc(state.qmgr)}/queue`,
         { json: { name, type: "local" } }));
});

function putMessage(name) {
  act(`Message put to ${name}.`, () =>
    call("POST", `${REST}/messaging/qmgr/${enc(state.qmgr)}/queue/${enc(name)}/message`,
         { text: $("#message-text").value }));
}

function clearQueue(name) {
  if (!confirm(`Clear every message from ${name}?`)) return;
  act(`Queue ${name} cleared.`, () => mqsc({ command: "clear", qualifier: "qlocal", name }));
}

function deleteQueue(name) {
  if (!confirm(`Delete queue ${name}?`)) return;
  act(`Queue ${name} deleted.`, () =>
    call("DELETE", `${REST}/admin/qmgr/${enc(state.qmgr)}/queue/${enc(name)}`));
}

// MQMD's PutDate (YYYYMMDD) and PutTime (HHMMSSTH) as "YYYY-MM-DD HH:MM:SS.TH" UTC
function putWhen(d, t) {
  if (!/^\d{8}$/.test(d) || !/^\d{8}$/.test(t)) return `${d} ${t}`;
  return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)} ` +
    `${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4, 6)}.${t.slice(6)} UTC`;
}

async function browse(name) {
  try {
    const base = `${REST}/messaging/qmgr/${enc(state.qmgr)}/queue/${enc(name)}`;
    const { data } = await call("GET", `${base}/messagelist?limit=50`);
    $("#browse-queue").textContent = name;
    $("#browse tbody").replaceChildren(...data.messages.map((m) => el("tr", {},
      el("td", {}, m.messageId), el("td", {}, m.format), el("td", {}, m.persistence),
      el("td", {}, putWhen(m.putDate, m.putTime)), el("td", {}, m.userId))));
    const first = await call("GET", `${base}/message`);
    $("#browse-first").textContent = first.status === 200 ? first.data : "(no messages)";
    $("#browse-panel").hidden = false;
  } catch (e) {
    say(e.message, true);
  }
}

// --------------------------------------------------------------------------- channels

async function channelRows() {
  const q = enc(state.qmgr);
  const [{ data }, log] = await Promise.all([
    call("GET", `${REST}/admin/qmgr/${q}/channel?status=*&attributes=sender.connectionName`),
    call("GET", `/ibmmq/console/api/qmgr/${q}/errorlog?severity=EST`)]);
  return data.channel.filter((c) => !c.name.startsWith("SYSTEM."))
    .map((c) => {
      const s = c.status || {};
      const err = log.data.entries.find((e) => e.message.includes(`'${c.name}'`) ||
                                              e.message.includes(` ${c.name} `));
      return { name: c.name, type: c.type, state: s.state || "inactive",
               partner: s.connectionName || (c.sender || {}).connectionName || "",
               rqm: s.remoteQmgrName || "", messages: s.messages ?? "",
               error: err ? err.message : "" };
    });
}

function renderChannels(rows) {
  const chl = (verb, name, extra = {}) => mqsc({ command: verb, qualifier: "channel", name,
                                                  ...extra });
  $("#channels tbody").replaceChildren(...rows.map((c) => el("tr", { dataset: { channel: c.name } },
    el("td", {}, c.name), el("td", {}, c.type), el("td", { className: "state" }, c.state),
    el("td", {}, c.rqm ? `${c.partner} (${c.rqm})` : c.partner), el("td", {}, c.messages),
    el("td", { className: "error" }, c.error),
    el("td", {},
      button("Start", "start", { channel: c.name },
             () => act(`Channel ${c.name} start requested.`, () => chl("start", c.name))),
      button("Stop", "stop", { channel: c.name },
             () => act(`Channel ${c.name} stop requested.`, () => chl("stop", c.name))),
      button("Ping", "ping", { channel: c.name },
             () => act(`Channel ${c.name} pinged.`, () => chl("ping", c.name))),
      button("Resolve", "resolve", { channel: c.name },
             () => act(`Channel ${c.name} resolved.`, () => chl("resolve", c.name,
               { parameters: { action: $("#resolve-action").value } })))))));
}

// --------------------------------------------------------------------------- publish/subscribe

async function renderPubSub() {
  const q = enc(state.qmgr);
  const [topics, subs] = await Promise.all([
    mqsc({ command: "display", qualifier: "topic", name: "*",
           responseParameters: ["topicstr", "descr"] }),
    call("GET", `${REST}/admin/qmgr/${q}/subscription?attributes=destination,general`,
         { none: { subscription: [] } })]);
  const rows = topics.data.commandResponse.map((r) => r.parameters).filter((t) => t)
    .filter((t) => $("#show-system").checked || !t.topic.startsWith("SYSTEM."));
  $("#topics tbody").replaceChildren(...rows.map((t) => el("tr", { dataset: { topic: t.topic } },
    el("td", {}, t.topic), el("td", { className: "topicstr" }, t.topicstr ?? ""),
    el("td", {}, t.descr ?? ""))));
  $("#subscriptions tbody").replaceChildren(...subs.data.subscription.map((s) => el("tr",
    { dataset: { sub: s.name } }, el("td", {}, s.name),
    el("td", { className: "topicstr" }, s.resolvedTopicString),
    el("td", { className: "dest" }, s.destination.isManaged ? `${s.destination.name} (managed)`
                                                            : s.destination.name),
    el("td", { className: "durable" }, s.general.isDurable ? "yes" : "no"),
    el("td", {}, s.general.type))));
}

// --------------------------------------------------------------------------- error log

async function renderErrorLog() {
  const sev = [..."IWEST"].filter((s) => $(`#sev-${s}`).checked).join("");
  const rows = sev ? (await call("GET",
    `/ibmmq/console/api/qmgr/${enc(state.qmgr)}/errorlog?severity=${sev}`)).data.entries : [];
  $("#errorlog tbody").replaceChildren(...rows.map((e) => el("tr",
    { className: `sev-${e.severity}` }, el("td", {}, e.time), el("td", {}, e.severity),
    el("td", { title: `${e.explanation}\n${e.action}` }, e.message), el("td", {}, e.program))));
}

// --------------------------------------------------------------------------- charts

function sample(rows, channels) {
  const now = Date.now() / 1000;
  const depths = Object.fromEntries(rows.map((q) => [q.name, q.depth]));
  const msgs = channels.reduce((n, c) => n + (Number(c.messages) || 0), 0);
  const rates = {};
  let netRate = 0, chlRate = 0;
  if (state.lastDepths && now > state.lastTime) {
    const dt = now - state.lastTime;
    for (const [name, d] of Object.entries(depths)) {
      if (name in state.lastDepths) rates[name] = (d - state.lastDepths[name]) / dt;
    }
    netRate = Object.values(rates).reduce((a, b) => a + b, 0);
    chlRate = state.lastChannelMsgs === null || !channels.length ? 0
      : Math.max(0, msgs - state.lastChannelMsgs) / dt;
  }
  state.lastDepths = depths;
  state.lastChannelMsgs = channels.length ? msgs : null;
  state.lastTime = now;
  state.history.push({ depths, netRate, chlRate, queueRates: state.queueRates });
  if (state.history.length > HISTORY) state.history.shift();
  return rates;
}

function drawLines(canvas, series) {
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const all = series.flatMap((s) => s.values);
  const lo = Math.min(0, ...all), hi = Math.max(1, ...all);
  const x = (i) => 40 + (i * (canvas.width - 50)) / Math.max(1, HISTORY - 1);
  const y = (v) => canvas.height - 20 - ((v - lo) * (canvas.height - 30)) / (hi - lo || 1);
  ctx.strokeStyle = "#c6c6c6";
  ctx.fillStyle = "#525252";
  ctx.font = "11px sans-serif";
  for (const v of [lo, (lo + hi) / 2, hi]) {
    ctx.beginPath(); ctx.moveTo(40, y(v)); ctx.lineTo(canvas.width, y(v)); ctx.stroke();
    ctx.fillText(String(Math.round(v * 10) / 10), 2, y(v) + 4);
  }
  series.forEach((s, n) => {
    ctx.strokeStyle = COLOURS[n % COLOURS.length];
    ctx.lineWidth = 2;
    ctx.beginPath();
    s.values.forEach((v, i) => (i ? ctx.lineTo(x(i), y(v)) : ctx.moveTo(x(i), y(v))));
    ctx.stroke();
  });
}

function drawCharts(rows) {
  const top = rows.slice(0, 5).map((q) => q.name);
  const depthSeries = top.map((name) => ({ name,
    values: state.history.map((h) => h.depths[name] ?? 0) }));
  drawLines($("#depth-chart"), depthSeries);
  drawLines($("#rate-chart"), [
    { name: "net depth change /s", values: state.history.map((h) => h.netRate) },
    { name: "channel messages /s", values: state.history.map((h) => h.chlRate) }]);
  for (const [id, key] of [["#put-rate-chart", "putRate"], ["#get-rate-chart", "getRate"]]) {
    const series = top.map((name) => ({ name,
      values: state.history.map((h) => (h.queueRates[name] || {})[key] || 0) }));
    drawLines($(id), series);
    $(id).dataset.peak = JSON.stringify(Object.fromEntries(
      series.map((s) => [s.name, Math.max(0, ...s.values)])));
  }
  $("#chart-legend").replaceChildren(...depthSeries.map((s, n) => el("li", {},
    el("span", { style: { background: COLOURS[n % COLOURS.length] } }), s.name)));
  $("#depth-chart").dataset.points = String(state.history.length);
}

// --------------------------------------------------------------------------- refresh

async function refresh() {
  if (!state.loggedIn || !state.qmgr) return;
  try {
    if (state.tab === "qmgrs-tab") await loadQmgrs();
    const rows = await queueRows();
    const channels = state.tab === "channels-tab" || state.tab === "charts-tab"
      ? await channelRows() : [];
    if (state.tab === "queues-tab" || state.tab === "charts-tab") await loadQueueRates();
    const rates = sample(rows, channels);
    if (state.tab === "queues-tab") {
      await loadQueueFiles();
      renderQueues(rows, rates);
    }
    if (state.tab === "channels-tab") renderChannels(channels);
    if (state.tab === "errorlog-tab") await renderErrorLog();
    if (state.tab === "pubsub-tab") await renderPubSub();
    if (state.tab === "charts-tab") drawCharts(rows);
    $("#updated").textContent = `Updated ${new Date().toLocaleTimeString()}`;
  } catch (e) {
    say(e.message, true);
  }
}
