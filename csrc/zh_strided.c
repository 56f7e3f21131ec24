#include "zh_strided.h"

#include <stdlib.h>
#include <string.h>

/* Canonical form of a strided block: size-1 dimensions dropped, dimensions ordered by
 * the destination's stride (largest first) and contiguous neighbours merged, so the
 * innermost run is as long as possible.  Works on copies of the caller's arrays. */
typedef struct {
    int ndim;
    int64_t shape[ZH_MAX_DIMS];
    int64_t ds[ZH_MAX_DIMS];
    int64_t ss[ZH_MAX_DIMS];
} zh_layout;

static int64_t zh_abs64(int64_t x) { return x < 0 ? -x : x; }

static int zh_simplify(zh_layout *L, int ndim, const int64_t *shape, const int64_t *ds,
                       const int64_t *ss) {
    int n = 0;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) return ZH_ERR_SHAPE;
        if (shape[i] == 0) { L->ndim = -1; return ZH_OK; } /* empty block */
        if (shape[i] == 1) continue;
        L->shape[n] = shape[i];
        L->ds[n] = ds[i];
        L->ss[n] = ss ? ss[i] : 0;
        n++;
    }
    /* insertion sort by |dst stride| descending: few dims, stable */
    for (int i = 1; i < n; i++) {
        int64_t sh = L->shape[i], d = L->ds[i], s = L->ss[i];
        int j = i - 1;
        while (j >= 0 && zh_abs64(L->ds[j]) < zh_abs64(d)) {
            L->shape[j + 1] = L->shape[j]; L->ds[j + 1] = L->ds[j]; L->ss[j + 1] = L->ss[j];
            j--;
        }
        L->shape[j + 1] = sh; L->ds[j + 1] = d; L->ss[j + 1] = s;
    }
    /* merge dim i into i+1 when i steps exactly over the whole of i+1 in both buffers */
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0) {
            int k = m - 1;
            if (L->ds[k] == L->ds[i] * L->shape[i] && L->ss[k] == L->ss[i] * L->shape[i]) {
                L->shape[i] *= L->shape[k];
                m--;
            }
        }
        L->shape[m] = L->shape[i]; L->ds[m] = L->ds[i]; L->ss[m] = L->ss[i];
        m++;
    }
    L->ndim = m;
    return ZH_OK;
}

static inline void zh_swap_item(char *d, const char *s, int64_t itemsize, int swap) {
    switch (swap) {
    case 2:
        for (int64_t c = 0; c < itemsize; c += 2) {
            uint16_t v; memcpy(&v, s + c, 2); v = __builtin_bswap16(v); memcpy(d + c, &v, 2);
        }
        break;
    case 4:
        for (int64_t c = 0; c < itemsize; c += 4) {
            uint32_t v; memcpy(&v, s + c, 4); v = __builtin_bswap32(v); memcpy(d + c, &v, 4);
        }
        break;
    case 8:
        for (int64_t c = 0; c < itemsize; c += 8) {
            uint64_t v; memcpy(&v, s + c, 8); v = __builtin_bswap64(v); memcpy(d + c, &v, 8);
        }
        break;
    default:
        memcpy(d, s, (size_t)itemsize);
    }
}

/* Innermost run: n elements at strides dstep/sstep. Specialised for the common cases
 * so the compiler can vectorise them. */
static void zh_copy_run(char *restrict d, const char *restrict s, int64_t n, int64_t dstep,
                        int64_t sstep, int64_t itemsize, int swap) {
    if (swap <= 1) {
        if (dstep == itemsize && sstep == itemsize) {
            memcpy(d, s, (size_t)(n * itemsize));
            return;
        }
        switch (itemsize) {
        case 1: for (int64_t i = 0; i < n; i++) d[i * dstep] = s[i * sstep]; return;
        case 2: for (int64_t i = 0; i < n; i++) memcpy(d + i * dstep, s + i * sstep, 2); return;
        case 4: for (int64_t i = 0; i < n; i++) memcpy(d + i * dstep, s + i * sstep, 4); return;
        case 8: for (int64_t i = 0; i < n; i++) memcpy(d + i * dstep, s + i * sstep, 8); return;
        default:
            for (int64_t i = 0; i < n; i++) memcpy(d + i * dstep, s + i * sstep, (size_t)itemsize);
            return;
        }
    }
    if (swap == itemsize) {
        if (swap == 2) {
            for (int64_t i = 0; i < n; i++) {
                uint16_t v; memcpy(&v, s + i * sstep, 2); v = __builtin_bswap16(v);
                memcpy(d + i * dstep, &v, 2);
            }
            return;
        }
        if (swap == 4) {
            for (int64_t i = 0; i < n; i++) {
                uint32_t v; memcpy(&v, s + i * sstep, 4); v = __builtin_bswap32(v);
                memcpy(d + i * dstep, &v, 4);
            }
            return;
        }
        if (swap == 8) {
            for (int64_t i = 0; i < n; i++) {
                uint64_t v; memcpy(&v, s + i * sstep, 8); v = __builtin_bswap64(v);
                memcpy(d + i * dstep, &v, 8);
            }
            return;
        }
    }
    for (int64_t i = 0; i < n; i++) zh_swap_item(d + i * dstep, s + i * sstep, itemsize, swap);
}

int zh_copy_strided(char *dst, const char *src, int ndim, const int64_t *shape,
                    const int64_t *dst_bstrides, const int64_t *src_bstrides,
                    int64_t itemsize, int swap) {
    if (ndim < 0 || ndim > ZH_MAX_DIMS) return ZH_ERR_NDIM;
    if (itemsize <= 0) return ZH_ERR_ITEMSIZE;
    if (swap > 1 && (swap != 2 && swap != 4 && swap != 8)) return ZH_ERR_ITEMSIZE;
    if (swap > 1 && itemsize % swap != 0) return ZH_ERR_ITEMSIZE;
    zh_layout L;
    int st = zh_simplify(&L, ndim, shape, dst_bstrides, src_bstrides);
    if (st != ZH_OK) return st;
    if (L.ndim < 0) return ZH_OK;
    if (L.ndim == 0) { zh_copy_run(dst, src, 1, itemsize, itemsize, itemsize, swap); return ZH_OK; }
    int inner = L.ndim - 1;
    int64_t idx[ZH_MAX_DIMS] = {0};
    char *d = dst;
    const char *s = src;
    for (;;) {
        zh_copy_run(d, s, L.shape[inner], L.ds[inner], L.ss[inner], itemsize, swap);
        int k = inner - 1;
        while (k >= 0) {
            idx[k]++;
            d += L.ds[k];
            s += L.ss[k];
            if (idx[k] < L.shape[k]) break;
            d -= L.ds[k] * L.shape[k];
            s -= L.ss[k] * L.shape[k];
            idx[k] = 0;
            k--;
        }
        if (k < 0) break;
    }
    return ZH_OK;
}

int zh_fill_strided(char *dst, int ndim, const int64_t *shape, const int64_t *dst_bstrides,
                    const char *value, int64_t itemsize) {
    if (ndim < 0 || ndim > ZH_MAX_DIMS) return ZH_ERR_NDIM;
    if (itemsize <= 0) return ZH_ERR_ITEMSIZE;
    zh_layout L;
    int st = zh_simplify(&L, ndim, shape, dst_bstrides, NULL);
    if (st != ZH_OK) return st;
    if (L.ndim < 0) return ZH_OK;
    /* all-equal bytes (zeros, most fill values) become one memset per contiguous run */
    int uniform = 1;
    for (int64_t b = 1; b < itemsize; b++) if (value[b] != value[0]) { uniform = 0; break; }
    if (L.ndim == 0) { memcpy(dst, value, (size_t)itemsize); return ZH_OK; }
    int inner = L.ndim - 1;
    int64_t n = L.shape[inner], step = L.ds[inner];
    int64_t idx[ZH_MAX_DIMS] = {0};
    char *d = dst;
    for (;;) {
        if (step == itemsize && uniform) {
            memset(d, (unsigned char)value[0], (size_t)(n * itemsize));
        } else {
            for (int64_t i = 0; i < n; i++) memcpy(d + i * step, value, (size_t)itemsize);
        }
        int k = inner - 1;
        while (k >= 0) {
            idx[k]++;
            d += L.ds[k];
            if (idx[k] < L.shape[k]) break;
            d -= L.ds[k] * L.shape[k];
            idx[k] = 0;
            k--;
        }
        if (k < 0) break;
    }
    return ZH_OK;
}
