/*
 * The C side of select/angara's placement: the Slurm-facing plugin
 * (select_angara.c, C with Slurm's headers) asks the core library here which
 * free block a job should get.  Everything behind these functions is C++
 * (block_filter.cpp); no exception crosses them, every error is a return
 * value and a message.
 */
#ifndef ANGARA_SELECT_BLOCK_FILTER_H
#define ANGARA_SELECT_BLOCK_FILTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct angara_block_filter angara_block_filter_t;

/*
 * Reads the machine configuration (angara.yaml(5)) at config_path and maps
 * Slurm's node table onto the torus: slurm_names[i] is the name of Slurm's
 * node index i (NULL for a hole in the table).  Returns NULL when the file
 * cannot be read or parsed, or when a Slurm node is not in the machine; the
 * message then says why (file, line and what was expected, or the names).
 * On success the message summarises the machine.  `previous` (NULL: none)
 * is the filter this one replaces (scontrol reconfigure): what it learnt
 * about block shapes is kept when the torus is the same.
 */
angara_block_filter_t *angara_block_filter_create(const char *config_path, const char *const *slurm_names,
                                                  size_t slurm_count, const angara_block_filter_t *previous,
                                                  char *message, size_t message_size);
void angara_block_filter_destroy(angara_block_filter_t *filter);

enum angara_block_result {
  ANGARA_BLOCK_FOUND = 0, /* chosen[] holds the block */
  ANGARA_BLOCK_NONE = 1,  /* no free block: the message says why */
  ANGARA_BLOCK_ERROR = 2  /* bad arguments or an internal error: the message says which */
};

/*
 * The best free block of node_count nodes (placement/block_choice.hpp): usable[i]
 * nonzero when Slurm may give node index i to the job, failed[i] nonzero
 * when it is DOWN or DRAINED (a failed router, never in a block; NULL: none),
 * both of slurm_count entries as at create.  On ANGARA_BLOCK_FOUND chosen[i]
 * is 1 for the nodes of the block (more than node_count when only a larger
 * isolated box is free) and 0 elsewhere, and the message names the block.
 */
int angara_block_filter_choose(angara_block_filter_t *filter, const unsigned char *usable,
                               const unsigned char *failed, size_t slurm_count, uint32_t node_count,
                               unsigned char *chosen, char *message, size_t message_size);

#ifdef __cplusplus
}
#endif

#endif
