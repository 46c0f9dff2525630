# The OpenMP queries of skcgm's compiled kernels, one thread without OpenMP.
# A kernel module built with OpenMP cimports them from here, so that every
# module asks the runtime it links the same way.

cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    #define SKCGM_OPENMP 1
    #define SKCGM_MAX_THREADS() omp_get_max_threads()
    #define SKCGM_TEAM_SIZE() omp_get_num_threads()
    #else
    #define SKCGM_OPENMP 0
    #define SKCGM_MAX_THREADS() 1
    #define SKCGM_TEAM_SIZE() 1
    #endif
    """
    int SKCGM_OPENMP
    # omp_get_max_threads(): the size of the next team this thread opens.
    int max_threads "SKCGM_MAX_THREADS"() noexcept nogil
    # omp_get_num_threads(): the size of the team the caller runs in.
    int team_size "SKCGM_TEAM_SIZE"() noexcept nogil
