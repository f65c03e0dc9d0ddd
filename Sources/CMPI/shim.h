#ifndef COACH_MPI_SHIM_H
#define COACH_MPI_SHIM_H
/* Open MPI's C API for Coach's Communicator (issue 18). MPI_COMM_WORLD, MPI_BYTE and friends
   are macros over Open MPI's globals, which Swift cannot import: the few calls Coach needs are
   wrapped here as static inline functions that return MPI's error codes. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static inline void coach_mpi_finalize_at_exit(void) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Finalize();
}

/* Starts MPI (threads may exist, but only one calls MPI at a time) and registers MPI_Finalize
   to run at exit. Errors on the world communicator return codes instead of aborting, so Coach
   can name the rank and the call. Returns MPI_SUCCESS or an error code. */
static inline int coach_mpi_init(int *rank, int *size, int *localSize) {
    int provided = 0;
    int code = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    if (code != MPI_SUCCESS) return code;
    atexit(coach_mpi_finalize_at_exit);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if ((code = MPI_Comm_rank(MPI_COMM_WORLD, rank)) != MPI_SUCCESS) return code;
    if ((code = MPI_Comm_size(MPI_COMM_WORLD, size)) != MPI_SUCCESS) return code;
    MPI_Comm local;
    if ((code = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local)) != MPI_SUCCESS) return code;
    code = MPI_Comm_size(local, localSize);
    MPI_Comm_free(&local);
    return code;
}

/* The text of an MPI error code. */
static inline void coach_mpi_error_string(int code, char *text, int capacity) {
    char buffer[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, buffer, &length) != MPI_SUCCESS) length = snprintf(buffer, sizeof buffer, "MPI error %d", code);
    if (length >= capacity) length = capacity - 1;
    memcpy(text, buffer, (size_t)length);
    text[length] = 0;
}

/* This process's host name, as MPI knows it. */
static inline void coach_mpi_processor_name(char *text, int capacity) {
    char buffer[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    if (MPI_Get_processor_name(buffer, &length) != MPI_SUCCESS) length = 0;
    if (length >= capacity) length = capacity - 1;
    memcpy(text, buffer, (size_t)length);
    text[length] = 0;
}

/* Every rank's int64 in rank order (values[size]). */
static inline int coach_mpi_allgather_int64(int64_t value, int64_t *values) {
    return MPI_Allgather(&value, 1, MPI_INT64_T, values, 1, MPI_INT64_T, MPI_COMM_WORLD);
}

/* Broadcasts count bytes from root, in pieces below MPI's int limit. */
static inline int coach_mpi_broadcast_bytes(void *bytes, int64_t count, int root) {
    const int64_t piece = (int64_t)1 << 30;
    for (int64_t offset = 0; offset < count; offset += piece) {
        int64_t length = count - offset < piece ? count - offset : piece;
        int code = MPI_Bcast((char *)bytes + offset, (int)length, MPI_BYTE, root, MPI_COMM_WORLD);
        if (code != MPI_SUCCESS) return code;
    }
    return MPI_SUCCESS;
}

static inline int coach_mpi_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }

/* Ends every rank of the job with `code` (never returns). */
static inline void coach_mpi_abort(int code) {
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}
#endif
