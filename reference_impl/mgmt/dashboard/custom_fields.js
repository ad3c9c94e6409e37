// Custom Fields page of the reference's dashboard (reference_impl/mgmt/dashboard.py says why).
// Everything goes through the rules API's phase entry point, GET and PUT, exactly as any other
// client would: the page keeps no state of its own beyond the last ruleset it was shown, and
// every refusal it displays is the API's own error message.
"use strict";

(function () {
  const PHASE = "http_log_custom_fields";
  const TYPES = {
    request_fields: "Request Header",
    response_fields: "Response Header",
    cookie_fields: "Cookies",
  };
  const RULE_KEYS = ["action", "expression", "description", "action_parameters", "enabled", "ref"];
  const CREDS = "edge-conformance.dashboard.credentials";

  const app = document.getElementById("app");
  const $ = (id) => document.getElementById(id);
  const entrypoint = `${app.dataset.apiBase}/zones/${encodeURIComponent(app.dataset.zoneId)}` +
    `/rulesets/phases/${PHASE}/entrypoint`;
  let credentials = null;
  let ruleset = null;   // the entry point ruleset as last returned by the API, or null

  class ApiFailure extends Error {}

  // One call of the rules API; resolves to the envelope's result, throws ApiFailure with the
  // envelope's error messages. A missing entry point (404, code 20006) is "no fields yet".
  async function api(method, body) {
    const headers = {"X-Auth-Email": credentials.email, "X-Auth-Key": credentials.key};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(entrypoint, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ApiFailure(`The rules API could not be reached: ${err.message}`);
    }
    let envelope = null;
    try { envelope = await response.json(); } catch (err) { envelope = null; }
    if (response.ok && envelope && envelope.success) return envelope.result;
    const errors = (envelope && Array.isArray(envelope.errors)) ? envelope.errors : [];
    if (method === "GET" && response.status === 404 && errors.some((e) => e.code === 20006)) {
      return null;
    }
    const text = errors.map((e) => `${e.message} (code ${e.code})`).join("; ");
    throw new ApiFailure(text || `The rules API answered HTTP ${response.status}`);
  }

  function fieldsOf(current) {
    const out = [];
    ((current && current.rules) || []).forEach((rule, index) => {
      const params = rule.action_parameters || {};
      for (const type of Object.keys(TYPES)) {
        for (const item of params[type] || []) out.push({index, type, name: item.name});
      }
    });
    return out;
  }

  // The rules to PUT back: only the keys a request may carry, arrays without fields dropped,
  // rules left without any field dropped (the API refuses a rule naming none of the arrays).
  function requestRules(rules) {
    const out = [];
    for (const rule of rules) {
      const kept = {};
      for (const key of RULE_KEYS) if (key in rule) kept[key] = rule[key];
      const params = {};
      for (const [key, value] of Object.entries(rule.action_parameters || {})) {
        if (!Array.isArray(value) || value.length) params[key] = value;
      }
      if (Object.keys(params).length === 0) continue;
      kept.action_parameters = params;
      out.push(kept);
    }
    return out;
  }

  function copyRules() {
    return JSON.parse(JSON.stringify((ruleset && ruleset.rules) || []));
  }

  function render() {
    const fields = fieldsOf(ruleset);
    const body = $("fields-body");
    body.replaceChildren();
    for (const field of fields) {
      const row = document.createElement("tr");
      row.dataset.type = field.type;
      row.dataset.name = field.name;
      const type = document.createElement("td");
      type.textContent = TYPES[field.type];
      const name = document.createElement("td");
      name.textContent = field.name;
      const cell = document.createElement("td");
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "delete-field";
      remove.textContent = "Delete";
      remove.setAttribute("aria-label", `Delete ${TYPES[field.type]} ${field.name}`);
      remove.addEventListener("click", () => run("Deleted", () => removeField(field)));
      cell.append(remove);
      row.append(type, name, cell);
      body.append(row);
    }
    $("fields-table").hidden = fields.length === 0;
    $("fields-empty").hidden = fields.length !== 0;
  }

  function showError(text) {
    const box = $("error");
    box.textContent = text;
    box.hidden = !text;
  }

  // Runs one API operation: busy state for tests and users, errors shown, list re-rendered.
  async function run(done, operation) {
    app.dataset.state = "busy";
    showError("");
    $("status").textContent = "";
    try {
      await operation();
      $("status").textContent = done;
      render();
      return true;
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
      showError(err.message);
      return false;
    } finally {
      app.dataset.ops = String(Number(app.dataset.ops || "0") + 1);
      app.dataset.state = "idle";
    }
  }

  async function load() {
    ruleset = await api("GET");
  }

  async function addField(type, name) {
    await load();   // start from what the API holds now, not from what the page last saw
    const rules = copyRules();
    let rule = rules.find((r) => r.action === "log_custom_field");
    if (!rule) {
      rule = {action: "log_custom_field", expression: "true",
        description: "Custom fields set in the dashboard", action_parameters: {}};
      rules.push(rule);
    }
    rule.action_parameters = rule.action_parameters || {};
    rule.action_parameters[type] = (rule.action_parameters[type] || []).concat([{name}]);
    ruleset = await api("PUT", {rules: requestRules(rules)});
  }

  async function removeField(field) {
    await load();
    const rules = copyRules();
    const found = fieldsOf({rules}).find((f) => f.type === field.type && f.name === field.name);
    if (!found) return;   // already gone: nothing to change
    const items = rules[found.index].action_parameters[field.type];
    items.splice(items.findIndex((item) => item.name === field.name), 1);
    ruleset = await api("PUT", {rules: requestRules(rules)});
  }

  async function signIn(email, key) {
    credentials = {email, key};
    const ok = await run("Signed in", load);
    if (ok) {
      sessionStorage.setItem(CREDS, JSON.stringify(credentials));
      $("login").hidden = true;
      $("fields").hidden = false;
    } else {
      credentials = null;
      sessionStorage.removeItem(CREDS);
    }
  }

  $("login-form").addEventListener("submit", (event) => {
    event.preventDefault();
    signIn($("login-email").value.trim(), $("login-key").value.trim());
  });
  $("edit-fields").addEventListener("click", () => { $("editor").hidden = false; });
  $("set-new-field").addEventListener("click", () => {
    $("new-field-form").hidden = false;
    $("field-name").focus();
  });
  $("cancel-field").addEventListener("click", () => {
    $("new-field-form").hidden = true;
    showError("");
  });
  $("new-field-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const type = $("field-type").value;
    const name = $("field-name").value;
    if (await run("Saved", () => addField(type, name))) {
      $("field-name").value = "";
      $("new-field-form").hidden = true;
    }
  });

  app.dataset.state = "idle";
  const saved = sessionStorage.getItem(CREDS);
  if (saved) {
    const parsed = JSON.parse(saved);
    signIn(parsed.email, parsed.key);
  }
})();
