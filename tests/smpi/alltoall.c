/* MPI_Alltoall of a few message sizes, each timed with MPI_Wtime over a
 * barrier; rank 0 prints "alltoall BYTES SECONDS" per size.  Run by
 * tests/test_smpi.sh under SMPI on a platform angara-route simulate
 * --platform wrote. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static const int block_sizes[] = {1024, 65536, 262144}; /* a 32-rank run holds 2 x 32 blocks a rank */
  for (size_t i = 0; i < sizeof block_sizes / sizeof block_sizes[0]; ++i) {
    const int bytes = block_sizes[i];
    char* send = malloc((size_t)bytes * size);
    char* receive = malloc((size_t)bytes * size);
    if (!send || !receive) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(send, rank, (size_t)bytes * size);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    MPI_Alltoall(send, bytes, MPI_CHAR, receive, bytes, MPI_CHAR, MPI_COMM_WORLD);
    double elapsed = MPI_Wtime() - start, slowest = 0;
    MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    /* Every block arrived from the rank that sent it. */
    int wrong = 0, wrong_anywhere = 0;
    for (int from = 0; from < size; ++from)
      if (receive[(size_t)from * bytes] != (char)from || receive[(size_t)from * bytes + bytes - 1] != (char)from) wrong = 1;
    MPI_Reduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("alltoall %d %.9f%s\n", bytes, slowest, wrong_anywhere ? " WRONG DATA" : "");
    free(send);
    free(receive);
  }
  MPI_Finalize();
  return 0;
}
