-- wrk script of bench/talk_speed.py: the chatbox's talk form (rotating questions the demo bot knows,
-- rewords and does not know), a fifth of the talks starting a dialog and the others continuing one of
-- the dialogs this thread's answers opened (up to 5 turns each). Counts what came back so that the
-- benchmark can check every 200 against the database: per dialog (the answer's contextId), per status.
--   wrk -s bench/talk_wrk.lua https://127.0.0.1:PORT -- /servlet/api/chat/talk/BOT questions.tsv
-- questions.tsv: one question a line, "language<TAB>text".

local questions = {}  -- read by init() from the file bench/talk_speed.py writes (open_loop.QUESTIONS)
local TURNS = 5
local NEW_DIALOG_EVERY = 5

local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

local path, counter = "/", 0
local open = {}       -- contexts (decoded) this thread's answers opened, with the turns they had
statuses = {}   -- (global: done() reads it) status -> count
dialogs = {}    -- (global) contextId (as answered, base64) -> talks answered 200

function init(args)
  path = args[1] or "/"
  for line in io.lines(args[2]) do
    local language, text = line:match("^([^\t]+)\t(.*)$")
    if language then table.insert(questions, { language, text }) end
  end
  counter = id * 7919
end

local function urlencode(text)
  return (text:gsub("[^%w%-_%.~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function b64decode(data)
  data = data:gsub("[^%w%+/=]", "")
  return (data:gsub(".", function(x)
    if x == "=" then return "" end
    local r, f = "", (alphabet:find(x, 1, true) - 1)
    for i = 6, 1, -1 do r = r .. (f % 2 ^ i - f % 2 ^ (i - 1) > 0 and "1" or "0") end
    return r
  end):gsub("%d%d%d?%d?%d?%d?%d?%d?", function(x)
    if #x ~= 8 then return "" end
    local c = 0
    for i = 1, 8 do c = c + (x:sub(i, i) == "1" and 2 ^ (8 - i) or 0) end
    return string.char(c)
  end))
end

function request()
  counter = counter + 1
  local q = questions[counter % #questions + 1]
  local target = path
  if counter % NEW_DIALOG_EVERY ~= 0 and #open > 0 then
    local slot = counter % #open + 1
    local dialog = open[slot]
    target = path .. "/" .. dialog.context
    dialog.turns = dialog.turns + 1
    if dialog.turns >= TURNS then table.remove(open, slot) end
  end
  local body = "userInput=" .. urlencode(q[2]) .. "&language=" .. q[1] ..
    "&space=Defaut&solutionUsed=ASSISTANT&qualificationMode=false&variables=%7B%7D&clientId=wrk" .. id
  return wrk.format("POST", target, { ["Content-Type"] = "application/x-www-form-urlencoded" }, body)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status ~= 200 then return end
  local context = body:match('"contextId"%s*:%s*"([^"]+)"')
  if context then
    dialogs[context] = (dialogs[context] or 0) + 1
    if dialogs[context] == 1 and #open < 64 then
      table.insert(open, { context = b64decode(context), turns = 1 })
    end
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("SUMMARY %d %d %d %d %d %d %d\n", summary.requests, summary.duration,
    e.connect, e.read, e.write, e.status, e.timeout))
  for _, p in ipairs({ 50, 90, 95, 99, 99.9 }) do
    io.write(string.format("LATENCY %g %d\n", p, latency:percentile(p)))
  end
  io.write(string.format("LATENCY max %d\n", latency.max))
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      io.write(string.format("STATUS %s %d\n", status, count))
    end
    for context, count in pairs(thread:get("dialogs")) do
      io.write(string.format("DIALOG %s %d\n", context, count))
    end
  end
end
