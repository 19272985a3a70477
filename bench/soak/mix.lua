-- bench/soak/mix.lua: the request mix of the soak (bench/soak/run drives it).
--
-- Every wrk thread reads $SOAK_DIR/accounts.txt, one line per demo account:
--   <index> <cookie or -> <comma-separated API tokens> <application ids> <listing ids> <company ids>
-- (ids comma-separated). The API tokens are shared out between the threads
-- (token k goes to thread k mod SOAK_THREADS), so each thread alone counts what
-- every one of its tokens has spent.
--
-- peto allows a token 600 API requests an hour (api/api.h); the mix stays under
-- that without one 429: a token is used at most SOAK_TOKEN_BUDGET times in one
-- clock hour (the server's window is the same epoch hour), and the API share is
-- paced over the run (SOAK_SECONDS) so that the mix is the same at the end as
-- after warm-up; it is at most SOAK_API_SHARE (default 0.5) of the requests.
-- When the pace, the share or the budgets say no, the request is a web one.
--
-- Web (signed-in pages, with a session cookie): the dashboard most of all, the
-- lists of applications, listings, reminders and companies, the inbox, one
-- application and one listing; and /healthz.
-- API: lists (limit 20) of seven kinds, single records, /api/v1/me, and
-- writes: POST a reminder or a note, whose DELETE is the thread's next API
-- request. The created record's body says which account made it
-- ("soak-<account>-<n>"), so the DELETE goes out with a token of that account.
-- The number of reminders and notes therefore stays flat: at most one created
-- and not yet deleted per connection at any moment.
--
-- Every answer is counted by status; the mix only asks for things that answer
-- 200, 201 or 204 (bench/soak/run checks each kind of request before the run),
-- so anything else is an error: a 3xx would be a lost session, a 429 a budget
-- overrun. done() prints one line "SOAK_RESULT <json>" for bench/soak/run.

local dir = os.getenv("SOAK_DIR")
local nthreads = tonumber(os.getenv("SOAK_THREADS") or "2")
local seconds = tonumber(os.getenv("SOAK_SECONDS") or "600")
local budget = tonumber(os.getenv("SOAK_TOKEN_BUDGET") or "590")
local api_share = tonumber(os.getenv("SOAK_API_SHARE") or "0.5")

local threads = {}
local counter = 0

function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local function split(s, sep)
  local out = {}
  if s == nil or s == "-" or s == "" then return out end
  for part in string.gmatch(s, "([^" .. sep .. "]+)") do table.insert(out, part) end
  return out
end

local accounts = {}    -- index -> {cookie, ids = {applications, listings, companies}}
local tokens = {}      -- this thread's tokens: {secret, account, used, window}
local web_accounts = {}
local pending = {}     -- {path, account}: DELETEs to send
local next_token = 1
local start = 0
local api_sent = 0
local sent = 0
local api_rate = 0     -- API requests a second for this thread
local serial = 0

-- Counted in this thread and read by done() through thread:get.
statuses = {}
kinds = {}

function init(args)
  local k = 0
  for line in io.lines(dir .. "/accounts.txt") do
    local f = split(line, " ")
    local index = tonumber(f[1])
    local acct = {
      cookie = f[2] ~= "-" and f[2] or nil,
      applications = split(f[4], ","),
      listings = split(f[5], ","),
      companies = split(f[6], ","),
    }
    accounts[index] = acct
    if acct.cookie then table.insert(web_accounts, acct) end
    for _, secret in ipairs(split(f[3], ",")) do
      if k % nthreads == tid then
        table.insert(tokens, {secret = secret, account = index, used = 0, window = -1})
      end
      k = k + 1
    end
  end
  start = os.time()
  -- Spread the budget of one hour over the run (the whole budget when the run
  -- is shorter than the time it takes to spend it).
  api_rate = #tokens * budget / seconds
  math.randomseed(tid * 7919 + start)
end

local function count(t, key)
  t[key] = (t[key] or 0) + 1
end

-- A token of `account` (any account when nil) with `need` requests left in
-- this clock hour, or nil.
local function take_token(need, account)
  local window = math.floor(os.time() / 3600)
  local n = #tokens
  for _ = 1, n do
    local t = tokens[next_token]
    next_token = next_token % n + 1
    if t.window ~= window then
      t.window = window
      t.used = 0
    end
    if (account == nil or t.account == account) and t.used + need <= budget then
      t.used = t.used + 1
      return t
    end
  end
  return nil
end

local function pick(list)
  return list[math.random(#list)]
end

local function api(method, path, token, body, kind)
  api_sent = api_sent + 1
  count(kinds, kind)
  local headers = {["Authorization"] = "Bearer " .. token.secret}
  if body then headers["Content-Type"] = "application/json" end
  return wrk.format(method, path, headers, body)
end

local list_kinds = {"applications", "listings", "companies", "reminders", "contacts", "notes",
                    "interviews"}

local function api_request(paced)
  -- A pending DELETE first, with a token of the account that owns the record.
  if #pending > 0 then
    local p = pending[1]
    local t = take_token(1, p.account)
    if t then
      table.remove(pending, 1)
      return api("DELETE", p.path, t, nil, "api_delete")
    end
  end
  if not paced then return nil end
  local r = math.random(100)
  if r <= 15 then
    -- A write: needs room for its DELETE too.
    local t = take_token(2, nil)
    if not t then return nil end
    serial = serial + 1
    local title = "soak-" .. t.account .. "-" .. tid .. "-" .. serial
    if r <= 8 then
      return api("POST", "/api/v1/reminders", t,
                 '{"title":"' .. title .. '","due_at":"2099-01-01T09:00:00Z"}', "api_post")
    end
    return api("POST", "/api/v1/notes", t, '{"body":"' .. title .. '"}', "api_post")
  end
  local t = take_token(1, nil)
  if not t then return nil end
  local a = accounts[t.account]
  if r <= 60 then
    return api("GET", "/api/v1/" .. pick(list_kinds) .. "?limit=20", t, nil, "api_list")
  elseif r <= 70 then
    return api("GET", "/api/v1/me", t, nil, "api_me")
  elseif r <= 80 and #a.listings > 0 then
    return api("GET", "/api/v1/listings/" .. pick(a.listings), t, nil, "api_get")
  elseif r <= 90 and #a.companies > 0 then
    return api("GET", "/api/v1/companies/" .. pick(a.companies), t, nil, "api_get")
  elseif #a.applications > 0 then
    return api("GET", "/api/v1/applications/" .. pick(a.applications), t, nil, "api_get")
  end
  return api("GET", "/api/v1/applications?limit=20", t, nil, "api_list")
end

local function web_request()
  local r = math.random(100)
  if r <= 15 or #web_accounts == 0 then
    count(kinds, "healthz")
    return wrk.format("GET", "/healthz")
  end
  local a = pick(web_accounts)
  local path
  if r <= 55 then
    path = "/"
  elseif r <= 62 then
    path = "/applications"
  elseif r <= 69 then
    path = "/listings"
  elseif r <= 75 then
    path = "/reminders"
  elseif r <= 80 then
    path = "/companies"
  elseif r <= 85 then
    path = "/inbox"
  elseif r <= 93 and #a.applications > 0 then
    path = "/applications/" .. pick(a.applications)
  elseif #a.listings > 0 then
    path = "/listings/" .. pick(a.listings)
  else
    path = "/"
  end
  count(kinds, path == "/" and "dashboard" or "page")
  return wrk.format("GET", path, {["Cookie"] = a.cookie})
end

function request()
  sent = sent + 1
  local paced = api_sent < api_rate * (os.time() - start + 1) and api_sent < api_share * sent
  if #tokens > 0 and (paced or #pending > 0) then
    local req = api_request(paced)
    if req then return req end
  end
  return web_request()
end

function response(status, headers, body)
  count(statuses, tostring(status))
  if status == 201 and body then
    local kind = headers["Location"] and string.match(headers["Location"], "^/api/v1/(%a+)/%d+$")
    local account = string.match(body, '"soak%-(%d+)%-')
    if kind and account then
      table.insert(pending, {path = headers["Location"], account = tonumber(account)})
    end
  end
end

local function json_table(t)
  local parts = {}
  for k, v in pairs(t) do table.insert(parts, string.format('"%s":%d', k, v)) end
  return "{" .. table.concat(parts, ",") .. "}"
end

function done(summary, latency, requests)
  local all_statuses, all_kinds, left = {}, {}, 0
  for _, thread in ipairs(threads) do
    for k, v in pairs(thread:get("statuses") or {}) do all_statuses[k] = (all_statuses[k] or 0) + v end
    for k, v in pairs(thread:get("kinds") or {}) do all_kinds[k] = (all_kinds[k] or 0) + v end
  end
  local e = summary.errors
  io.write(string.format(
    'SOAK_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"socket_errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},"non_2xx_3xx":%d,' ..
    '"latency_us":{"mean":%.1f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d},' ..
    '"statuses":%s,"kinds":%s}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout,
    e.status, latency.mean, latency.max, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), json_table(all_statuses),
    json_table(all_kinds)))
end
