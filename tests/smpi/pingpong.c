/* Ping-pong between ranks 0 and 1: for each size given (bytes, default 8 and
 * 1048576), rank 0 sends, rank 1 answers with the same size, 10 times;
 * after one untimed round trip; rank 0 prints "pingpong BYTES SECONDS", SECONDS one way (half a round
 * trip, averaged).  Run by tests/test_smpi.sh on two nodes of a platform. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "pingpong: needs 2 ranks, not %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int default_sizes[] = {8, 1048576};
  int count = argc > 1 ? argc - 1 : 2;
  for (int i = 0; i < count; ++i) {
    const int bytes = argc > 1 ? atoi(argv[i + 1]) : default_sizes[i];
    char* buffer = calloc(bytes > 0 ? bytes : 1, 1);
    if (!buffer) MPI_Abort(MPI_COMM_WORLD, 1);
    const int repeats = 10;
    /* A first round trip, untimed, so that both ranks wait in step: a
     * barrier lets rank 1 leave a message latency after rank 0. */
    if (rank == 0) {
      MPI_Send(buffer, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
    const double start = MPI_Wtime();
    for (int r = 0; r < repeats; ++r) {
      if (rank == 0) {
        MPI_Send(buffer, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buffer, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buffer, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buffer, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
      }
    }
    const double one_way = (MPI_Wtime() - start) / (2.0 * repeats);
    if (rank == 0) printf("pingpong %d %.9f\n", bytes, one_way);
    free(buffer);
  }
  MPI_Finalize();
  return 0;
}
