/*
 * select/angara: a Slurm 22.05 node selection plugin that keeps each job on
 * a block of the Angara torus of its own (select-angara(8)).
 *
 * It wraps another select plugin (select/cons_tres unless
 * select_angara.conf names one) the way select/cray_aries wraps one through
 * select/other: every call is forwarded.  Only select_p_job_test does more:
 * before the wrapped plugin chooses, the job's candidate nodes are narrowed
 * to the best free block (placement/block_choice.hpp, through
 * block_filter.h), in every mode, so a pending job is placed when it starts
 * and backfill's will-run tests see blocks too.  When no block can be
 * chosen the wrapped plugin gets the nodes Slurm passed, and the log says
 * why.  Nothing here starts a process or throws: the C++ core is behind
 * block_filter.h, which returns errors as values.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h" /* Must be first among src/ (Slurm's rule) */
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/parse_config.h"
#include "src/common/plugin.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/select.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "select/block_filter.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

/* Outside Slurm's own list of select plugin ids (slurm.h, 101..110). */
#define SELECT_PLUGIN_ANGARA 170
#define PREFIX "select/angara: "
#define CONF_NAME "select_angara.conf"
#define DEFAULT_WRAPPED "select/cons_tres"

const char plugin_name[] = "Angara torus blocks (wraps another select plugin)";
const char plugin_type[] = "select/angara";
const uint32_t plugin_id = SELECT_PLUGIN_ANGARA;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The symbols of the wrapped plugin, in the order of slurm_select_ops_t
 * (src/common/select.h), as select/other lists them. */
static const char *wrapped_syms[] = {
	"plugin_id",
	"select_p_state_save",
	"select_p_state_restore",
	"select_p_job_init",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
	"select_p_job_signal",
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_step_pick_nodes",
	"select_p_step_start",
	"select_p_step_finish",
	"select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack",
	"select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc",
	"select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set",
	"select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy",
	"select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack",
	"select_p_select_jobinfo_sprint",
	"select_p_select_jobinfo_xstrdup",
	"select_p_get_info_from_plugin",
	"select_p_update_node_config",
	"select_p_reconfigure",
	"select_p_resv_test",
};

static slurm_select_ops_t wrapped;
static plugin_context_t *wrapped_context = NULL;
static char *wrapped_type = NULL;
static char *machine_config = NULL;

/* The machine, mapped onto slurmctld's node table; NULL: pass through. */
static pthread_mutex_t filter_lock = PTHREAD_MUTEX_INITIALIZER;
static angara_block_filter_t *filter = NULL;
static char filter_problem[1024] = "not loaded yet";

/* HoldBoxSpares (select_angara.conf, default yes): a job placed on part of
 * a larger isolated box keeps the box's other nodes from jobs of two or
 * more nodes while it runs, so that no later job's routes cross the routers
 * its own routes use (doc/benchmarks.md, "Holding box routers").  One-node
 * jobs may take them: their routes cross nothing.  Under routing.confine a
 * job in a box is narrowed to exactly its nodes and nothing is held.
 * Held under filter_lock; lost when slurmctld restarts. */
static bool hold_box_spares = true;
typedef struct {
	uint32_t job_id;
	bitstr_t *spares;
} box_hold_t;
static box_hold_t *holds = NULL;
static size_t hold_count = 0, hold_capacity = 0;

/* BlockWait (select_angara.conf, seconds, default 0: never): a job of two
 * or more nodes that finds no free block, where one would be free once the
 * running jobs end, is left pending (Slurm's "Resources") until this long
 * after it became eligible to run; then the wrapped plugin places it.  Waiting
 * isolates more jobs for more mean wait (doc/benchmarks.md, "Waiting for a
 * block"). */
static uint32_t block_wait = 0;

/* Jobs whose fallback, and jobs whose wait for a block, was logged at
 * info (once per job each). */
#define LOGGED_JOBS 1024
typedef struct {
	uint32_t jobs[LOGGED_JOBS];
	size_t next;
} logged_jobs_t;
static logged_jobs_t logged_fallbacks, logged_waits;

/* Errors are for slurmctld's log; the commands that load every select
 * plugin of PluginDir (squeue, sinfo, ...) stay quiet. */
#define complain(...)                              \
	do {                                       \
		if (running_in_slurmctld())        \
			error(__VA_ARGS__);        \
		else                               \
			debug(__VA_ARGS__);        \
	} while (0)

/* select_angara.conf next to slurm.conf (like cray.conf): MachineConfig and
 * WrappedSelectType; both optional, unknown keys are errors. */
static void _read_conf(void)
{
	static s_p_options_t options[] = {
		{"BlockWait", S_P_UINT32},
		{"HoldBoxSpares", S_P_BOOLEAN},
		{"MachineConfig", S_P_STRING},
		{"WrappedSelectType", S_P_STRING},
		{NULL}
	};
	char *path = get_extra_conf_path(CONF_NAME);
	char *value = NULL;
	s_p_hashtbl_t *table = NULL;
	struct stat st;

	xfree(wrapped_type);
	xfree(machine_config);
	hold_box_spares = true;
	block_wait = 0;
	if (path && (stat(path, &st) == 0)) {
		table = s_p_hashtbl_create(options);
		if (s_p_parse_file(table, NULL, path, false, NULL) ==
		    SLURM_ERROR) {
			complain(PREFIX "%s: cannot be parsed (keys: BlockWait, HoldBoxSpares, MachineConfig, WrappedSelectType); using the defaults",
				 path);
		} else {
			bool hold = true;
			uint32_t wait = 0;
			if (s_p_get_boolean(&hold, "HoldBoxSpares", table))
				hold_box_spares = hold;
			if (s_p_get_uint32(&wait, "BlockWait", table))
				block_wait = wait;
			if (s_p_get_string(&value, "WrappedSelectType", table))
				wrapped_type = value;
			value = NULL;
			if (s_p_get_string(&value, "MachineConfig", table))
				machine_config = value;
		}
		s_p_hashtbl_destroy(table);
	}
	if (wrapped_type && !xstrcmp(wrapped_type, plugin_type)) {
		complain(PREFIX "%s: WrappedSelectType cannot be %s itself; using %s",
			 path, plugin_type, DEFAULT_WRAPPED);
		xfree(wrapped_type);
	}
	if (!wrapped_type)
		wrapped_type = xstrdup(DEFAULT_WRAPPED);
	if (!machine_config)
		machine_config = xstrdup(SYSCONFDIR "/angara/angara.yaml");
	xfree(path);
}

static int _load_wrapped(void)
{
	if (wrapped_context)
		return SLURM_SUCCESS;
	if (sizeof(wrapped_syms) != sizeof(wrapped))
		fatal(PREFIX "built for a slurm_select_ops_t of another size: rebuild against this Slurm's source");
	wrapped_context = plugin_context_create("select", wrapped_type,
						(void **) &wrapped,
						wrapped_syms,
						sizeof(wrapped_syms));
	if (!wrapped_context && xstrcmp(wrapped_type, DEFAULT_WRAPPED)) {
		complain(PREFIX "cannot load the wrapped plugin %s; using %s",
			 wrapped_type, DEFAULT_WRAPPED);
		xfree(wrapped_type);
		wrapped_type = xstrdup(DEFAULT_WRAPPED);
		wrapped_context = plugin_context_create(
			"select", wrapped_type, (void **) &wrapped,
			wrapped_syms, sizeof(wrapped_syms));
	}
	if (!wrapped_context) {
		error(PREFIX "cannot load the wrapped plugin %s", wrapped_type);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

/* (Re)maps the machine onto slurmctld's node table.  A configuration error
 * leaves `filter` NULL: every job test then passes through, said here.
 * slurmctld calls node_init when it reads slurm.conf (start, scontrol
 * reconfigure) and reconfigure then and after node and partition updates:
 * the latter log only an outcome that changed. */
static void _load_machine(bool log_unchanged)
{
	static char last_outcome[sizeof(filter_problem)] = "";
	bool changed;
	node_record_t *node_ptr;
	const char **names;
	char message[sizeof(filter_problem) - 64];
	angara_block_filter_t *loaded;
	int i;

	if (!running_in_slurmctld())
		return;
	names = xcalloc(node_record_count ? node_record_count : 1,
			sizeof(char *));
	for (i = 0; (node_ptr = next_node(&i)); i++)
		names[i] = node_ptr->name;
	slurm_mutex_lock(&filter_lock);
	loaded = angara_block_filter_create(machine_config, names,
					    node_record_count, filter, message,
					    sizeof(message));
	xfree(names);
	angara_block_filter_destroy(filter);
	filter = loaded;
	changed = xstrcmp(last_outcome, message) != 0;
	strlcpy(last_outcome, message, sizeof(last_outcome));
	if (loaded) {
		filter_problem[0] = '\0';
		if (changed || log_unchanged)
			info(PREFIX "machine %s", message);
		else
			debug(PREFIX "machine %s", message);
	} else {
		snprintf(filter_problem, sizeof(filter_problem),
			 "configuration error: %s", message);
		if (changed || log_unchanged)
			error(PREFIX "configuration error: %s (MachineConfig %s); every job is placed by %s unchanged until this is fixed and slurmctld reconfigured",
			      message, machine_config, wrapped_type);
	}
	slurm_mutex_unlock(&filter_lock);
}

extern int init(void)
{
	_read_conf();
	if (_load_wrapped() != SLURM_SUCCESS)
		return SLURM_ERROR;
	if (running_in_slurmctld()) {
		info(PREFIX "%s %s for Slurm %s, wrapping %s, machine configuration %s, box spares %s, block wait %u s",
		     ANGARA_PACKAGE, ANGARA_VERSION,
		     SLURM_VERSION_STRING, wrapped_type, machine_config,
		     hold_box_spares ? "held" : "not held", block_wait);
		/* An ended job's nodes come free one by one, as each epilog
		 * ends; without CompleteWait a waiting job may be tested
		 * while no block is whole yet. */
		if (slurm_conf.complete_wait == 0)
			info(PREFIX "CompleteWait is 0: a job may start while an ended job's nodes are still completing, before its block is free whole; set CompleteWait (select-angara(8))");
	}
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	int rc = SLURM_SUCCESS;

	slurm_mutex_lock(&filter_lock);
	angara_block_filter_destroy(filter);
	filter = NULL;
	for (size_t i = 0; i < hold_count; i++)
		FREE_NULL_BITMAP(holds[i].spares);
	xfree(holds);
	hold_count = hold_capacity = 0;
	slurm_mutex_unlock(&filter_lock);
	if (wrapped_context) {
		rc = plugin_context_destroy(wrapped_context);
		wrapped_context = NULL;
	}
	xfree(wrapped_type);
	xfree(machine_config);
	return rc;
}

/* --- the job test ------------------------------------------------------- */

static bool _logged_before(logged_jobs_t *logged, uint32_t job_id)
{
	bool found = false;

	slurm_mutex_lock(&filter_lock);
	for (size_t i = 0; (i < LOGGED_JOBS) && !found; i++)
		found = (logged->jobs[i] == job_id);
	if (!found) {
		logged->jobs[logged->next] = job_id;
		logged->next = (logged->next + 1) % LOGGED_JOBS;
	}
	slurm_mutex_unlock(&filter_lock);
	return found;
}

static const char *_mode_name(uint16_t mode)
{
	if (SELECT_IS_MODE_TEST_ONLY(mode))
		return "test-only";
	if (SELECT_IS_MODE_WILL_RUN(mode))
		return "will-run";
	return "run-now";
}

/* The node count the block is for, or 0 (and why) when the request does
 * not give one.  A job without -N has a count Slurm derived (requested);
 * when the wrapped plugin cannot place the job in that block, it gets the
 * nodes Slurm passed (select_p_job_test). */
static uint32_t _node_count(job_record_t *job_ptr, uint32_t min_nodes,
			    uint32_t max_nodes, uint32_t req_nodes, char *why,
			    size_t why_size)
{
	if (job_ptr->details && job_ptr->details->req_node_bitmap) {
		snprintf(why, why_size, "the job names its nodes (--nodelist)");
		return 0;
	}
	if (min_nodes && (min_nodes == max_nodes))
		return min_nodes;
	if (req_nodes && (req_nodes >= min_nodes) && (req_nodes <= max_nodes))
		return req_nodes;
	snprintf(why, why_size,
		 "node count not determinable (min %u, max %u, requested %u nodes)",
		 min_nodes, max_nodes, req_nodes);
	return 0;
}

/* The nodes other jobs' boxes hold (NULL: none); under filter_lock. */
static bitstr_t *_held_nodes_locked(uint32_t job_id, int64_t size)
{
	bitstr_t *held = NULL;

	for (size_t i = 0; i < hold_count; i++) {
		if ((holds[i].job_id == job_id) ||
		    (bit_size(holds[i].spares) != size))
			continue;
		if (!held)
			held = bit_alloc(size);
		bit_or(held, holds[i].spares);
	}
	return held;
}

static bitstr_t *_held_nodes(job_record_t *job_ptr, int64_t size)
{
	bitstr_t *held;

	slurm_mutex_lock(&filter_lock);
	held = _held_nodes_locked(job_ptr->job_id, size);
	slurm_mutex_unlock(&filter_lock);
	return held;
}

/* A job that starts on part of the box it was narrowed to holds the rest. */
static void _hold_box(job_record_t *job_ptr, bitstr_t *box, bitstr_t *nodes)
{
	bitstr_t *spares = bit_copy(box);
	char *names;

	bit_and_not(spares, nodes);
	if (bit_set_count(spares) == 0) {
		FREE_NULL_BITMAP(spares);
		return;
	}
	names = bitmap2node_name(spares);
	slurm_mutex_lock(&filter_lock);
	if (hold_count == hold_capacity) {
		hold_capacity = hold_capacity ? 2 * hold_capacity : 16;
		xrecalloc(holds, hold_capacity, sizeof(box_hold_t));
	}
	holds[hold_count].job_id = job_ptr->job_id;
	holds[hold_count].spares = spares;
	hold_count++;
	slurm_mutex_unlock(&filter_lock);
	info(PREFIX "%pJ holds %s, the rest of its box, from jobs of 2+ nodes while it runs",
	     job_ptr, names);
	xfree(names);
}

static void _release_box(job_record_t *job_ptr)
{
	slurm_mutex_lock(&filter_lock);
	for (size_t i = 0; i < hold_count;) {
		if (holds[i].job_id != job_ptr->job_id) {
			i++;
			continue;
		}
		char *names = bitmap2node_name(holds[i].spares);
		debug(PREFIX "%pJ ended: %s no longer held", job_ptr, names);
		xfree(names);
		FREE_NULL_BITMAP(holds[i].spares);
		holds[i] = holds[--hold_count];
	}
	slurm_mutex_unlock(&filter_lock);
}

/* The candidate nodes narrowed to the best free block, or NULL with `why`.
 * In run-now mode a node already running a job is not free (a block of
 * idle nodes first); in test-only and will-run modes Slurm's bitmap already
 * says which nodes the job could have.  `block_later` (run-now mode with a
 * BlockWait, no block free): whether a block would be free once every
 * running job has ended, among the nodes of the job's partition that it
 * does not exclude (Slurm's bitmap then holds only the nodes free now). */
static bitstr_t *_narrow(job_record_t *job_ptr, bitstr_t *bitmap,
			 uint32_t node_count, uint16_t mode, char *why,
			 size_t why_size, bool *block_later)
{
	unsigned char *usable, *failed, *chosen;
	node_record_t *node_ptr;
	bitstr_t *narrowed = NULL, *held;
	int i, result;
	bool run_now = !SELECT_IS_MODE_TEST_ONLY(mode) &&
		       !SELECT_IS_MODE_WILL_RUN(mode);

	slurm_mutex_lock(&filter_lock);
	if (!filter) {
		snprintf(why, why_size, "%s", filter_problem);
		slurm_mutex_unlock(&filter_lock);
		return NULL;
	}
	usable = xcalloc(node_record_count + 1, 1);
	failed = xcalloc(node_record_count + 1, 1);
	chosen = xcalloc(node_record_count + 1, 1);
	held = (node_count > 1) ? _held_nodes_locked(job_ptr->job_id, bit_size(bitmap)) : NULL;
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		failed[i] = IS_NODE_DOWN(node_ptr) || IS_NODE_DRAIN(node_ptr) ||
			    IS_NODE_FAIL(node_ptr);
		usable[i] = bit_test(bitmap, i) &&
			    !(run_now && node_ptr->run_job_cnt) &&
			    !(held && bit_test(held, i));
	}
	FREE_NULL_BITMAP(held);
	result = angara_block_filter_choose(filter, usable, failed,
					    node_record_count, node_count,
					    chosen, why, why_size);
	*block_later = false;
	if ((result == ANGARA_BLOCK_NONE) && run_now && block_wait) {
		char later_why[256];
		bitstr_t *part = job_ptr->part_ptr ?
				 job_ptr->part_ptr->node_bitmap : NULL;
		bitstr_t *excluded = job_ptr->details ?
				     job_ptr->details->exc_node_bitmap : NULL;
		for (i = 0; i < node_record_count; i++)
			usable[i] = (!part || bit_test(part, i)) &&
				    !(excluded && bit_test(excluded, i)) &&
				    !failed[i];
		*block_later = angara_block_filter_choose(
				       filter, usable, failed,
				       node_record_count, node_count, chosen,
				       later_why, sizeof(later_why)) ==
			       ANGARA_BLOCK_FOUND;
	}
	slurm_mutex_unlock(&filter_lock);
	if (result == ANGARA_BLOCK_FOUND) {
		narrowed = bit_alloc(bit_size(bitmap));
		for (i = 0; i < node_record_count; i++)
			if (chosen[i])
				bit_set(narrowed, i);
	}
	xfree(usable);
	xfree(failed);
	xfree(chosen);
	return narrowed;
}

static long _microseconds_since(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000000L +
	       (now.tv_nsec - start->tv_nsec) / 1000;
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     List preemptee_candidates,
			     List *preemptee_job_list,
			     bitstr_t *exc_core_bitmap)
{
	char why[1024] = "";
	bitstr_t *narrowed = NULL;
	bool block_later = false;
	uint32_t node_count;
	struct timespec start;
	long spent;
	int rc;
	bool run_now = !SELECT_IS_MODE_TEST_ONLY(mode) &&
		       !SELECT_IS_MODE_WILL_RUN(mode);

	clock_gettime(CLOCK_MONOTONIC, &start);
	node_count = _node_count(job_ptr, min_nodes, max_nodes, req_nodes,
				 why, sizeof(why));
	if (node_count)
		narrowed = _narrow(job_ptr, bitmap, node_count, mode, why,
				   sizeof(why), &block_later);
	spent = _microseconds_since(&start);

	/* No block now, one once running jobs end: within BlockWait the job
	 * stays pending (Slurm's test-only pass, which this plugin leaves to
	 * the wrapped one, tells Slurm it can run: "Resources"). */
	if (!narrowed && block_later && job_ptr->details) {
		/* Since it became eligible (begin time, dependencies
		 * met), else since its submission. */
		time_t since = job_ptr->details->begin_time ?
				       job_ptr->details->begin_time :
				       job_ptr->details->submit_time;
		long waited = (long) difftime(time(NULL), since);
		if (waited < (long) block_wait) {
			if (!_logged_before(&logged_waits, job_ptr->job_id))
				info(PREFIX "%pJ waits for a block (%s; one is free once running jobs end), up to BlockWait=%u s after it became eligible (%ld s left)",
				     job_ptr, why, block_wait,
				     (long) block_wait - waited);
			else
				debug(PREFIX "%pJ waits for a block (%s), %ld s left",
				      job_ptr, why, (long) block_wait - waited);
			return SLURM_ERROR;
		}
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "; waited BlockWait=%u s", block_wait);
	}

	if (narrowed) {
		bitstr_t *box = (run_now && hold_box_spares) ?
				bit_copy(narrowed) : NULL;
		rc = (*(wrapped.job_test))(job_ptr, narrowed, min_nodes,
					   max_nodes, req_nodes, mode,
					   preemptee_candidates,
					   preemptee_job_list,
					   exc_core_bitmap);
		if ((rc == SLURM_SUCCESS) && box)
			_hold_box(job_ptr, box, narrowed);
		FREE_NULL_BITMAP(box);
		if (rc == SLURM_SUCCESS) {
			if (run_now) {
				char *nodes = bitmap2node_name(narrowed);
				info(PREFIX "%pJ: %u nodes on %s (%s; %ld us)",
				     job_ptr, node_count, nodes, why, spent);
				xfree(nodes);
			} else {
				debug(PREFIX "%pJ %s: %s (%ld us)", job_ptr,
				      _mode_name(mode), why, spent);
			}
			bit_copybits(bitmap, narrowed);
			FREE_NULL_BITMAP(narrowed);
			return rc;
		}
		FREE_NULL_BITMAP(narrowed);
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "; %s does not place the job there", wrapped_type);
	}

	/* Without a block: the wrapped plugin's choice, away from the nodes
	 * boxes hold where it can place the job without them. */
	if (hold_box_spares && (node_count != 1)) {
		bitstr_t *held = _held_nodes(job_ptr, bit_size(bitmap));
		if (held && bit_overlap_any(held, bitmap)) {
			bitstr_t *without = bit_copy(bitmap);
			bit_and_not(without, held);
			rc = (*(wrapped.job_test))(job_ptr, without, min_nodes,
						   max_nodes, req_nodes, mode,
						   preemptee_candidates,
						   preemptee_job_list,
						   exc_core_bitmap);
			if (rc == SLURM_SUCCESS) {
				bit_copybits(bitmap, without);
				snprintf(why + strlen(why),
					 sizeof(why) - strlen(why),
					 "; away from the nodes boxes hold");
			}
			FREE_NULL_BITMAP(without);
			FREE_NULL_BITMAP(held);
			if (rc == SLURM_SUCCESS)
				goto placed;
		}
		FREE_NULL_BITMAP(held);
	}
	rc = (*(wrapped.job_test))(job_ptr, bitmap, min_nodes, max_nodes,
				   req_nodes, mode, preemptee_candidates,
				   preemptee_job_list, exc_core_bitmap);
placed:
	if (run_now && (rc == SLURM_SUCCESS)) {
		char *nodes = bitmap2node_name(bitmap);
		info(PREFIX "%pJ: no block (%s): placed by %s on %s",
		     job_ptr, why, wrapped_type, nodes);
		xfree(nodes);
	} else if (!_logged_before(&logged_fallbacks, job_ptr->job_id)) {
		info(PREFIX "%pJ %s: no block (%s); %s decides", job_ptr,
		     _mode_name(mode), why, wrapped_type);
	} else {
		debug(PREFIX "%pJ %s: no block (%s)", job_ptr,
		      _mode_name(mode), why);
	}
	return rc;
}

/* --- everything else is the wrapped plugin's ---------------------------- */

extern int select_p_state_save(char *dir_name)
{
	return (*(wrapped.state_save))(dir_name);
}

extern int select_p_state_restore(char *dir_name)
{
	return (*(wrapped.state_restore))(dir_name);
}

extern int select_p_job_init(List job_list)
{
	return (*(wrapped.job_init))(job_list);
}

extern int select_p_node_init(void)
{
	int rc = (*(wrapped.node_init))();
	_load_machine(true);
	return rc;
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	return (*(wrapped.job_begin))(job_ptr);
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	return (*(wrapped.job_ready))(job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr,
			       job_record_t *to_job_ptr)
{
	return (*(wrapped.job_expand))(from_job_ptr, to_job_ptr);
}

extern int select_p_job_resized(job_record_t *job_ptr,
				node_record_t *node_ptr)
{
	return (*(wrapped.job_resized))(job_ptr, node_ptr);
}

extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	return (*(wrapped.job_signal))(job_ptr, signal);
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	_release_box(job_ptr);
	return (*(wrapped.job_fini))(job_ptr);
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	return (*(wrapped.job_suspend))(job_ptr, indf_susp);
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	return (*(wrapped.job_resume))(job_ptr, indf_susp);
}

extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr,
					  select_jobinfo_t *jobinfo,
					  uint32_t node_count,
					  bitstr_t **avail_nodes)
{
	return (*(wrapped.step_pick_nodes))(job_ptr, jobinfo, node_count,
					    avail_nodes);
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	return (*(wrapped.step_start))(step_ptr);
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	return (*(wrapped.step_finish))(step_ptr, killing_step);
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo,
					 buf_t *buffer,
					 uint16_t protocol_version)
{
	return (*(wrapped.nodeinfo_pack))(nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo,
					   buf_t *buffer,
					   uint16_t protocol_version)
{
	return (*(wrapped.nodeinfo_unpack))(nodeinfo, buffer,
					    protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	return (*(wrapped.nodeinfo_alloc))();
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	return (*(wrapped.nodeinfo_free))(nodeinfo);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return (*(wrapped.nodeinfo_set_all))();
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	return (*(wrapped.nodeinfo_set))(job_ptr);
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo,
					enum select_nodedata_type dinfo,
					enum node_states state, void *data)
{
	return (*(wrapped.nodeinfo_get))(nodeinfo, dinfo, state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	return (*(wrapped.jobinfo_alloc))();
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	return (*(wrapped.jobinfo_free))(jobinfo);
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return (*(wrapped.jobinfo_set))(jobinfo, data_type, data);
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return (*(wrapped.jobinfo_get))(jobinfo, data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(
	select_jobinfo_t *jobinfo)
{
	return (*(wrapped.jobinfo_copy))(jobinfo);
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo,
					buf_t *buffer,
					uint16_t protocol_version)
{
	return (*(wrapped.jobinfo_pack))(jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo,
					  buf_t *buffer,
					  uint16_t protocol_version)
{
	return (*(wrapped.jobinfo_unpack))(jobinfo, buffer, protocol_version);
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
					    char *buf, size_t size, int mode)
{
	return (*(wrapped.jobinfo_sprint))(jobinfo, buf, size, mode);
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo,
					     int mode)
{
	return (*(wrapped.jobinfo_xstrdup))(jobinfo, mode);
}

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
					 job_record_t *job_ptr, void *data)
{
	return (*(wrapped.get_info_from_plugin))(dinfo, job_ptr, data);
}

extern int select_p_update_node_config(int index)
{
	return (*(wrapped.update_node_config))(index);
}

/* scontrol reconfigure: select_angara.conf and the machine are read again
 * (the wrapped plugin stays the one loaded at start). */
extern int select_p_reconfigure(void)
{
	int rc = (*(wrapped.reconfigure))();
	char *loaded_type = xstrdup(wrapped_type);

	_read_conf();
	info(PREFIX "%s: box spares %s, block wait %u s", CONF_NAME,
	     hold_box_spares ? "held" : "not held", block_wait);
	if (xstrcmp(loaded_type, wrapped_type)) {
		error(PREFIX "WrappedSelectType changed to %s: takes effect when slurmctld restarts; %s stays",
		      wrapped_type, loaded_type);
		xfree(wrapped_type);
		wrapped_type = loaded_type;
	} else {
		xfree(loaded_type);
	}
	_load_machine(false);
	return rc;
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt,
				    bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	return (*(wrapped.resv_test))(resv_desc_ptr, node_cnt, avail_bitmap,
				      core_bitmap);
}
