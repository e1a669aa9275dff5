-- job_submit.lua for Slurm's job_submit/lua plugin (JobSubmitPlugins=lua):
-- torus-aware placement with `angara-route select` (angara-route(8)).
--
-- Install next to slurm.conf as job_submit.lua.  A job asks for selection
-- by running in one of SELECT_PARTITIONS, or with "angara:select" in its
-- --comment.  The script asks `angara-route select --slurm` for the best
-- compact, routable node set of the job's node count (slurmctld's idle
-- nodes, the failed routers and the running jobs' routes) and sets it as
-- the job's required node list.  When the job names its nodes itself, gives
-- no node count, or selection fails or takes longer than TIMEOUT seconds,
-- the job is left to Slurm's own placement and the reason is logged in the
-- slurmctld log ("angara select: ...").
--
-- Limitation (Slurm 22.05, seen on the test cluster): slurmctld holds its
-- job lock while this script runs, and `select --slurm` asks slurmctld for
-- the running jobs, so the call cannot be answered and times out: the job
-- falls back to Slurm's placement after TIMEOUT seconds.  See
-- spank-angara(8), PLACEMENT.
--
-- Settings (edit here):
local ANGARA_ROUTE = "/usr/local/sbin/angara-route"
local CONFIG = ""                 -- angara.yaml; "" = angara-route's own search
local TIMEOUT = 3                 -- seconds for the whole selection
local SELECT_PARTITIONS = { angara = true }
local COMMENT_FLAG = "angara:select"

local NO_VAL = 4294967294         -- Slurm's "not set" for 32-bit fields

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

-- Runs `angara-route select`; returns the hostlist or nil and the reason.
local function select_nodes(count)
   local command = "timeout " .. TIMEOUT .. " " .. shell_quote(ANGARA_ROUTE) .. " select --count " .. count ..
      " --slurm --timeout " .. TIMEOUT
   if CONFIG ~= "" then command = command .. " --config " .. shell_quote(CONFIG) end
   -- Lua 5.1 cannot read a pipe's exit status: the shell appends it.
   local pipe = io.popen(command .. " 2>&1; echo \"exit=$?\"")
   if pipe == nil then return nil, "cannot run " .. ANGARA_ROUTE end
   local output = pipe:read("*a")
   pipe:close()
   local status = tonumber(string.match(output, "exit=(%d+)%s*$"))
   local text = string.gsub(string.gsub(output, "exit=%d+%s*$", ""), "%s+$", "")
   if status == 0 and string.match(text, "^[%w%-%.%[%],]+$") then return text end
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
   log("%s, %d nodes: %s (%d s)", who, count, nodes, os.time() - started)
   return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
   return slurm.SUCCESS
end

return slurm.SUCCESS
