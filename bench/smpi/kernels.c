/* The communication of the ANSU paper's Desmos measurements (section 5.2),
 * without their computation, for SMPI (bench/smpi_paper.sh):
 *   transpose, neighbor, tornado  Figure 6: each rank sends 1 MiB to one
 *                                 other rank (MPI_Sendrecv)
 *   alltoall                      Figure 6 (osu_alltoall): MPI_Alltoall of
 *                                 1 MiB blocks
 *   ft, is, cg, mg, lu            Table 3 (NPB 3.3.1 class C): the messages
 *                                 of their main loops at class C sizes
 * One rank per node (the paper ran 4).  Rank 0 prints "KERNEL SECONDS" per
 * kernel asked for (all by default): the simulated time from the start to
 * the last rank's end.  Buffers come from SMPI_SHARED_MALLOC under SMPI (no
 * memory per rank, no copies): the data are not the point.
 *
 * The NPB kernels follow the benchmarks' structure at class C, with the
 * rank grids NPB picks for 32 ranks; sizes are rounded and loops shortened
 * (the time of one iteration is what is compared):
 *   ft  one MPI_Alltoall transposing the 512^3 complex grid (2 MiB a pair)
 *   is  MPI_Allreduce of 1024 bucket sizes, MPI_Alltoall of the counts and
 *       MPI_Alltoallv of the 2^27 4-byte keys (512 KiB a pair)
 *   cg  25 iterations on a 4 x 8 grid (na = 150000): the row reduction in
 *       3 recursive-halving exchanges (150, 75, 37.5 kB), the exchange with
 *       the transposed rank (150 kB) and two dot products (3 exchanges of
 *       8 bytes each)
 *   mg  one V-cycle on a periodic 4 x 4 x 2 grid of 128 x 128 x 256 blocks:
 *       a face exchange in each of 3 axes, both ways, at every level from
 *       128 x 128 x 256 to 2 x 2 x 4 points, once down and twice up
 *   lu  one SSOR iteration on a 4 x 8 grid of 41 x 21 x 162 blocks: the lower
 *       and the upper triangular sweep as wavefronts over the 160 inner
 *       planes (840 and 1640 bytes from the north and the west, in the
 *       upper sweep from the south and the east) and the face exchange of
 *       the right-hand side (272 and 531 kB). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SMPI_SHARED_MALLOC
#define BUFFER(bytes) SMPI_SHARED_MALLOC(bytes)
#define RELEASE(pointer) SMPI_SHARED_FREE(pointer)
#else
#define BUFFER(bytes) malloc(bytes)
#define RELEASE(pointer) free(pointer)
#endif

static int rank, ranks;
static char* send_buffer;
static char* receive_buffer;
static const size_t kMiB = 1024 * 1024;
static const size_t kBufferBytes = 64 * 1024 * 1024; /* the largest: ft's 32 x 2 MiB */

/* Send `bytes` to `to`, receive as many from `from` (MPI_PROC_NULL: none). */
static void exchange(int to, int from, size_t bytes) {
  MPI_Sendrecv(send_buffer, (int)bytes, MPI_CHAR, to, 0, receive_buffer, (int)bytes, MPI_CHAR, from, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* ---------------------------------------------------------- Figure 6 */

/* With 2^b ranks, the rank's bits rotated left by b/2 (as angara-route's
 * transpose pattern); the ranks it maps to themselves stay idle. */
static int rotate(int r, int shift, int bits) { return ((r << shift) | (r >> (bits - shift))) & ((1 << bits) - 1); }

static void transpose(void) {
  int bits = 0;
  while ((1 << bits) < ranks) ++bits;
  if ((1 << bits) != ranks) {
    if (rank == 0) fprintf(stderr, "kernels: transpose needs a power of 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int to = rotate(rank, bits / 2, bits), from = rotate(rank, bits - bits / 2, bits);
  exchange(to == rank ? MPI_PROC_NULL : to, from == rank ? MPI_PROC_NULL : from, kMiB);
}

static void neighbor(void) { exchange((rank + 1) % ranks, (rank + ranks - 1) % ranks, kMiB); }

/* Rank r to r + ceil(n/2) - 1, in rank order (not the torus tornado of
 * angara-route simulate on a whole machine, which is one X hop on Desmos). */
static void tornado(void) {
  const int offset = (ranks + 1) / 2 - 1;
  exchange((rank + offset) % ranks, (rank + ranks - offset) % ranks, kMiB);
}

static void alltoall(void) {
  MPI_Alltoall(send_buffer, (int)kMiB, MPI_CHAR, receive_buffer, (int)kMiB, MPI_CHAR, MPI_COMM_WORLD);
}

/* ---------------------------------------------------------- Table 3 */

static void ft(void) {
  const size_t block = (size_t)512 * 512 * 512 * 16 / ranks / ranks;
  if (block * ranks > kBufferBytes) MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_Alltoall(send_buffer, (int)block, MPI_CHAR, receive_buffer, (int)block, MPI_CHAR, MPI_COMM_WORLD);
}

static void is(void) {
  static int buckets[1024], bucket_sums[1024];
  MPI_Allreduce(buckets, bucket_sums, 1024, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int* counts = calloc(ranks, sizeof(int));
  int* received = calloc(ranks, sizeof(int));
  int* offsets = calloc(ranks, sizeof(int));
  const int block = (int)(((size_t)1 << 27) * 4 / ranks / ranks);
  for (int r = 0; r < ranks; ++r) counts[r] = block, offsets[r] = r * block;
  MPI_Alltoall(counts, 1, MPI_INT, received, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoallv(send_buffer, counts, offsets, MPI_CHAR, receive_buffer, received, offsets, MPI_CHAR, MPI_COMM_WORLD);
  free(counts);
  free(received);
  free(offsets);
}

/* NPB's grid for 32 ranks: 4 rows x 8 columns, rank = row x 8 + column. */
static void cg(void) {
  const int rows = 4, columns = 8, row = rank / columns, column = rank % columns;
  const size_t segment = 150000 / rows * 8; /* bytes of a row's vector segment */
  /* The transposed rank: (row, 2q + b) <-> (q, 2 row + b), an involution. */
  const int transposed = (column / 2) * columns + 2 * row + column % 2;
  for (int iteration = 0; iteration < 25; ++iteration) {
    for (int step = 1; step < columns; step <<= 1) {
      const int partner = row * columns + (column ^ step);
      exchange(partner, partner, segment / (2 * step));
    }
    exchange(transposed, transposed, 150000 / columns * 8);
    for (int dot = 0; dot < 2; ++dot)
      for (int step = 1; step < columns; step <<= 1) {
        const int partner = row * columns + (column ^ step);
        exchange(partner, partner, 8);
      }
  }
}

/* NPB's grid for 32 ranks: 4 x 4 x 2, periodic, rank = x + 4 (y + 4 z). */
static void mg_faces(int nx, int ny, int nz) {
  static const int grid[3] = {4, 4, 2};
  int at[3] = {rank % 4, rank / 4 % 4, rank / 16};
  const size_t faces[3] = {(size_t)ny * nz * 8, (size_t)nx * nz * 8, (size_t)nx * ny * 8};
  for (int axis = 0; axis < 3; ++axis) {
    int up[3] = {at[0], at[1], at[2]}, down[3] = {at[0], at[1], at[2]};
    up[axis] = (at[axis] + 1) % grid[axis];
    down[axis] = (at[axis] + grid[axis] - 1) % grid[axis];
    const int up_rank = up[0] + 4 * (up[1] + 4 * up[2]), down_rank = down[0] + 4 * (down[1] + 4 * down[2]);
    exchange(up_rank, down_rank, faces[axis]);
    exchange(down_rank, up_rank, faces[axis]);
  }
}

static void mg(void) {
  int level = 0;
  for (int n = 128; n >= 2; n /= 2, ++level) mg_faces(n, n, 2 * n); /* down: the restriction */
  for (int n = 2; n <= 128; n *= 2)                                  /* up: interpolation, smoothing */
    mg_faces(n, n, 2 * n), mg_faces(n, n, 2 * n);
}

/* NPB's grid for 32 ranks: 4 x 8 (north-south x 4, west-east y 8), not
 * periodic; rank = x + 4 y. */
static void lu(void) {
  const int x = rank % 4, y = rank / 4;
  const int north = x > 0 ? rank - 1 : MPI_PROC_NULL, south = x < 3 ? rank + 1 : MPI_PROC_NULL;
  const int west = y > 0 ? rank - 4 : MPI_PROC_NULL, east = y < 7 ? rank + 4 : MPI_PROC_NULL;
  const int nx = 41, ny = 21, nz = 162;
  const int from_north = 5 * ny * 8, from_west = 5 * nx * 8;
  for (int k = 1; k < nz - 1; ++k) { /* lower sweep: from the north-west corner */
    MPI_Recv(receive_buffer, from_north, MPI_CHAR, north, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(receive_buffer, from_west, MPI_CHAR, west, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(send_buffer, from_north, MPI_CHAR, south, 1, MPI_COMM_WORLD);
    MPI_Send(send_buffer, from_west, MPI_CHAR, east, 2, MPI_COMM_WORLD);
  }
  for (int k = nz - 2; k > 0; --k) { /* upper sweep: from the south-east corner */
    MPI_Recv(receive_buffer, from_north, MPI_CHAR, south, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(receive_buffer, from_west, MPI_CHAR, east, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(send_buffer, from_north, MPI_CHAR, north, 3, MPI_COMM_WORLD);
    MPI_Send(send_buffer, from_west, MPI_CHAR, west, 4, MPI_COMM_WORLD);
  }
  const size_t north_south = (size_t)5 * 2 * ny * nz * 8, west_east = (size_t)5 * 2 * nx * nz * 8;
  exchange(south, north, north_south);
  exchange(north, south, north_south);
  exchange(east, west, west_east);
  exchange(west, east, west_east);
}

/* ---------------------------------------------------------- the run */

struct Kernel {
  const char* name;
  void (*run)(void);
  int npb; /* needs NPB's 32-rank grids */
};
static const struct Kernel kernels[] = {
    {"transpose", transpose, 0}, {"neighbor", neighbor, 0}, {"tornado", tornado, 0}, {"alltoall", alltoall, 0},
    {"ft", ft, 0},               {"is", is, 0},             {"cg", cg, 1},           {"mg", mg, 1},
    {"lu", lu, 1},
};
static const int kKernels = sizeof kernels / sizeof kernels[0];

/* The first kernel starts where MPI_Init leaves every rank, all at the same
 * simulated time; a later one after a barrier, whose ranks leave it at
 * times that depend on the routes and on the kernel before (one kernel a
 * run for figures to compare). */
static void run(const struct Kernel* kernel, int first) {
  if (kernel->npb && ranks != 32) {
    if (rank == 0) fprintf(stderr, "kernels: %s is written for 32 ranks, not %d\n", kernel->name, ranks);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (!first) MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  kernel->run();
  double elapsed = MPI_Wtime() - start, slowest = 0;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%s %.9f\n", kernel->name, slowest);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  send_buffer = BUFFER(kBufferBytes);
  receive_buffer = BUFFER(kBufferBytes);
  if (!send_buffer || !receive_buffer) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int a = 1; a < argc; ++a) {
    int found = 0;
    for (int k = 0; k < kKernels; ++k)
      if (strcmp(argv[a], kernels[k].name) == 0) found = 1;
    if (!found) {
      if (rank == 0) fprintf(stderr, "kernels: no kernel '%s'\n", argv[a]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  int first = 1;
  for (int k = 0; k < kKernels; ++k) {
    int wanted = argc == 1;
    for (int a = 1; a < argc; ++a) wanted |= strcmp(argv[a], kernels[k].name) == 0;
    if (wanted) run(&kernels[k], first), first = 0;
  }
  RELEASE(send_buffer);
  RELEASE(receive_buffer);
  MPI_Finalize();
  return 0;
}
