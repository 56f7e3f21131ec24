# The C declarations of zarrhpc/_kernels/engine.pyx (included there) and the status
# constants it exposes.
cdef extern from "Python.h":
    int PySlice_Unpack(object slice, Py_ssize_t *start, Py_ssize_t *stop,
                       Py_ssize_t *step) except -1
    Py_ssize_t PySlice_AdjustIndices(Py_ssize_t length, Py_ssize_t *start, Py_ssize_t *stop,
                                     Py_ssize_t step)

cnp.import_array()

cdef extern from "pthread.h":
    ctypedef struct pthread_mutex_t:
        pass

cdef extern from "zh_codecs.h":
    ctypedef struct zh_bb:
        int kind
        int level
        int checksum
        int shuffle
        int typesize
        int blocksize
        char cname[16]
        int64_t decoded_size
    ctypedef int (*zh_blosc1_compress_fn)(int, int, size_t, size_t, const void *, void *,
                                          size_t, const char *, size_t, int) noexcept nogil
    void zh_set_blosc1_compress(zh_blosc1_compress_fn fn)
    int zh_have_blosc1_compress()
    unsigned int zh_crc32c(unsigned int crc, const void *data, size_t n) nogil

cdef extern from "zh_blosc1.h":
    int zh_blosc1_handles(const char *cname, int clevel)
    int64_t zh_blosc1_encode(const char *cname, int clevel, int shuffle, int typesize,
                             int64_t block_bytes, const void *src, size_t n, void *dst,
                             size_t cap) nogil

cdef extern from "zh_engine.h":
    enum:
        ZH_TASK_TODO, ZH_TASK_DONE, ZH_TASK_FALLBACK, ZH_TASK_FAILED, ZH_TASK_SKIPPED
    ctypedef struct zh_job_t:
        int ndim
        int64_t itemsize
        int swap
        const int64_t *chunk_shape
        const int64_t *chunk_lstrides
        int64_t decoded_size
        const int64_t *array_shape
        const zh_bb *steps
        int nsteps
        const char *fill_stored
        const char *fill_native
        const int64_t *npieces
        const int64_t *piece_off
        const int64_t *p_chunk
        const int64_t *p_first
        const int64_t *p_count
        const int64_t *p_out
        const int64_t *step
        char *buf
        const int64_t *buf_strides
        const char *path_prefix
        int64_t root_len
        int key_kind
        char sep
        const char *const *mem_ptr
        const int64_t *mem_len
        int partial_ok
        int direct_ok
        int write_empty_chunks
        int durable
        const int64_t *shard_ratio
        const int64_t *g_n
        const int64_t *g_off
        const int64_t *g_piece
        const int64_t *g_count
        const int64_t *g_shard
        int index_start
        int index_crc
        const int64_t *src_coords
        const int64_t *src_file
        const int64_t *src_off
        const int64_t *src_len
        int64_t src_nfiles
        int *src_fd1
        int64_t *src_size
        uint8_t *task_status
        int failed
        int64_t err_task
        int err_code
        char err_msg[320]
    int zh_read_run(zh_job_t *job, int nthreads) nogil
    int zh_write_run(zh_job_t *job, int nthreads) nogil
    int zh_shard_write_run(zh_job_t *job, int nthreads) nogil

cdef extern from "zh_select.h":
    ctypedef struct zh_points_t:
        zh_job_t *job
        int64_t nchunks
        int64_t npoints
        const int64_t *chunk_coords
        const int64_t *offsets
        const int64_t *in_chunk
        const int64_t *out_index
        char *out
        int64_t out_size
        int scalar
        int floor
    ctypedef struct zh_ortho_t:
        zh_job_t *job
        const int64_t *q_start
        const int64_t *q_count
        const int64_t *q_in
        const int64_t *q_out
        int64_t nq
        const int64_t *full_shape
    ctypedef struct zh_shard_points_t:
        zh_points_t *pj
        int64_t nshards
        int64_t nchunks_per_shard
        const int64_t *shard_coords
        const int64_t *first
        const int64_t *member
        const int64_t *member_flat
        int index_start
        int index_crc
    int zh_points_run(zh_points_t *pj, int nthreads) nogil
    int zh_points_write_run(zh_points_t *pj, int nthreads) nogil
    int zh_shard_points_write_run(zh_shard_points_t *sp, int nthreads) nogil
    int zh_ortho_run(zh_ortho_t *oj, int nthreads) nogil
    int zh_ortho_write_run(zh_ortho_t *oj, int nthreads) nogil

cdef extern from "zh_mask.h":
    int64_t ZH_MASK_RANKS(int64_t rows, int64_t nseg) nogil
    ctypedef struct zh_mask_t:
        zh_job_t *job
        const uint64_t *bits
        const int64_t *shape
        const int64_t *grid
        const int64_t *rank
        char *out
        int64_t out_size
        int scalar
    void zh_mask_count(const uint8_t *mask, int64_t rows, int64_t row_len, int64_t seg_len,
                       int64_t *rank, uint64_t *bits, int nthreads) nogil
    int zh_mask_run(zh_mask_t *mj, int64_t ntasks, int nthreads) nogil
    int zh_mask_write_run(zh_mask_t *mj, int64_t ntasks, int nthreads) nogil

BB_CRC32C, BB_ZSTD, BB_GZIP, BB_BLOSC, BB_ZLIB = 1, 2, 3, 4, 5
DONE, FALLBACK, FAILED, SKIPPED = ZH_TASK_DONE, ZH_TASK_FALLBACK, ZH_TASK_FAILED, ZH_TASK_SKIPPED
cdef extern from "zh_status.h":
    enum:
        ZH_OK, ZH_ERR_SHAPE, ZH_ERR_ITEMSIZE, ZH_ERR_BOUNDS, ZH_ERR_NDIM, ZH_ERR_CORRUPT,
        ZH_ERR_IO, ZH_FALLBACK, ZH_ERR_NOMEM, ZH_ERR_CODEC, ZH_ERR_STORE,
        ZH_KEY_DEFAULT, ZH_KEY_V2
    const char *ZH_TMP_PREFIX
    const char *ZH_TMP_SUFFIX

#: status codes of the kernels (csrc/zh_status.h); zarrhpc.errors maps them to exceptions
STATUS = {
    "ERR_SHAPE": ZH_ERR_SHAPE, "ERR_ITEMSIZE": ZH_ERR_ITEMSIZE, "ERR_BOUNDS": ZH_ERR_BOUNDS,
    "ERR_NDIM": ZH_ERR_NDIM, "ERR_CORRUPT": ZH_ERR_CORRUPT, "ERR_IO": ZH_ERR_IO,
    "FALLBACK": ZH_FALLBACK, "ERR_NOMEM": ZH_ERR_NOMEM, "ERR_CODEC": ZH_ERR_CODEC,
    "ERR_STORE": ZH_ERR_STORE,
}
#: chunk key encoding name -> the key kind the engine builds file names for
KEY_KINDS = {"default": ZH_KEY_DEFAULT, "v2": ZH_KEY_V2}
#: LocalStore's temporary file names, as csrc/zh_write.c writes them
TEMP_PREFIX = (<bytes>ZH_TMP_PREFIX).decode("ascii")
TEMP_SUFFIX = (<bytes>ZH_TMP_SUFFIX).decode("ascii")
