-- job_submit.lua for Slurm's job_submit/lua plugin (JobSubmitPlugins=lua):
-- torus-aware placement with `angara-route select` (angara-route(8),
-- spank-angara(8) PLACEMENT).
--
-- Install next to slurm.conf as job_submit.lua.  A job asks for selection
-- by running in one of SELECT_PARTITIONS, or with "angara:select" in its
-- --comment.  The script asks `angara-route select` for the best compact,
-- routable node set of the job's node count and sets it as the job's
-- required node list.
-- When the job names its nodes itself, gives no node count, or selection
-- fails or takes longer than TIMEOUT seconds, the job is left to Slurm's own
-- placement and the reason is logged in the slurmctld log ("angara select:
-- ...").
--
-- What the script knows, on Slurm 22.05: slurmctld runs it under its job
-- lock, so nothing here may ask slurmctld (scontrol, squeue, sinfo would
-- wait on that lock).  The jobs come from the table job_submit/lua fills,
-- slurm.jobs: running, suspended and completing jobs hold their nodes (and
-- their routes load channels).  That table is refreshed only when slurmctld's
-- job list changed in a later second, and a job this script placed may not
-- have started yet, so the script also remembers the sets it handed out in
-- the last PICK_HOLD seconds and counts them as taken (a reload of the
-- script forgets them).  The node states (down routers, drained
-- or reserved nodes) come from NODE_STATES, a file `angara-route
-- node-states --output FILE` writes; refresh it from cron every minute and
-- from strigger on node events.  A file older than MAX_AGE seconds is not
-- trusted: the job goes to Slurm's placement, logged.
--
-- Settings (edit here):
local ANGARA_ROUTE = "/usr/local/sbin/angara-route"
local CONFIG = ""                 -- angara.yaml; "" = angara-route's own search
local NODE_STATES = "/var/lib/angara/node-states"
local MAX_AGE = 300               -- seconds
local TIMEOUT = 3                 -- seconds for the whole selection
local PICK_HOLD = 30              -- seconds a handed-out set counts as taken
local SELECT_PARTITIONS = { angara = true }
local COMMENT_FLAG = "angara:select"

local NO_VAL = 4294967294         -- Slurm's "not set" for 32-bit fields
local JOB_RUNNING, JOB_SUSPENDED = 1, 2
local JOB_COMPLETING = 32768      -- flag bit of job_state

local recent_picks = {}           -- { nodes = HOSTLIST, time = os.time() }, oldest first

local function log(fmt, ...)
   slurm.log_info("angara select: " .. fmt, ...)
end

local function wants_selection(job_desc)
   if job_desc.partition ~= nil then
      for name in string.gmatch(job_desc.partition, "[^,]+") do
         if SELECT_PARTITIONS[name] then return true end
      end
   end
   return job_desc.comment ~= nil and string.find(job_desc.comment, COMMENT_FLAG, 1, true) ~= nil
end

local function shell_quote(text)
   return "'" .. string.gsub(text, "'", "'\\''") .. "'"
end

-- The node lists of the jobs that hold nodes (slurm.jobs) and of the sets
-- handed out in the last PICK_HOLD seconds.
local function busy_node_lists()
   local lists = {}
   for _, job in pairs(slurm.jobs or {}) do
      local state = job.job_state or 0
      local base = state % 256
      local completing = math.floor(state / JOB_COMPLETING) % 2 == 1
      if (base == JOB_RUNNING or base == JOB_SUSPENDED or completing) and job.nodes ~= nil and job.nodes ~= "" then
         table.insert(lists, job.nodes)
      end
   end
   local now = os.time()
   while recent_picks[1] ~= nil and now - recent_picks[1].time > PICK_HOLD do table.remove(recent_picks, 1) end
   for _, pick in ipairs(recent_picks) do table.insert(lists, pick.nodes) end
   return lists
end

-- Runs `angara-route select`; returns the hostlist or nil and the reason.
local function select_nodes(count)
   local command = "timeout " .. TIMEOUT .. " " .. shell_quote(ANGARA_ROUTE) .. " select --quiet --count " .. count ..
      " --node-states " .. shell_quote(NODE_STATES) .. " --max-age " .. MAX_AGE .. " --foreign-ok"
   if CONFIG ~= "" then command = command .. " --config " .. shell_quote(CONFIG) end
   for _, nodes in ipairs(busy_node_lists()) do command = command .. " --busy " .. shell_quote(nodes) end
   -- Lua 5.1 cannot read a pipe's exit status: the shell appends it.
   local pipe = io.popen(command .. " 2>&1; echo \"exit=$?\"")
   if pipe == nil then return nil, "cannot run " .. ANGARA_ROUTE end
   local output = pipe:read("*a")
   pipe:close()
   local status = tonumber(string.match(output, "exit=(%d+)%s*$"))
   local text = string.gsub(string.gsub(output, "exit=%d+%s*$", ""), "%s+$", "")
   -- The hostlist is the last line; notes (a running job whose routes could
   -- not be counted) may come before it.
   local last = string.match(text, "([^\n]*)$")
   if status == 0 and string.match(last, "^[%w%-%.%[%],]+$") then return last end
   if status == 124 then return nil, "timed out after " .. TIMEOUT .. " s" end
   return nil, "exit status " .. tostring(status) .. ": " .. string.gsub(text, "\n", " | ")
end

function slurm_job_submit(job_desc, part_list, submit_uid)
   if not wants_selection(job_desc) then return slurm.SUCCESS end
   local who = "job " .. tostring(job_desc.name) .. " of uid " .. tostring(submit_uid)
   if job_desc.req_nodes ~= nil and job_desc.req_nodes ~= "" then
      log("%s names its nodes (%s); Slurm places it", who, job_desc.req_nodes)
      return slurm.SUCCESS
   end
   local count = job_desc.min_nodes
   if count == nil or count == NO_VAL or count < 1 then
      log("%s gives no node count (-N); Slurm places it", who)
      return slurm.SUCCESS
   end
   local started = os.time()
   local nodes, reason = select_nodes(count)
   if nodes == nil then
      log("%s, %d nodes: selection failed (%s); Slurm places it", who, count, reason)
      return slurm.SUCCESS
   end
   job_desc.req_nodes = nodes
   table.insert(recent_picks, { nodes = nodes, time = os.time() })
   log("%s, %d nodes: %s (%d s)", who, count, nodes, os.time() - started)
   return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
   return slurm.SUCCESS
end

return slurm.SUCCESS
