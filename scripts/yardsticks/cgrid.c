// cgrid.c - the C grid classifier of ../shared/bench/cref (geo_common.h: the
// plain 500 m uniform grid, bounding boxes, crossing-number test), timed on
// one core over the standard workload: the yardstick `make bench` sets
// FenceIndex's batched rate against, in the same sitting.
//
// usage: cgrid FENCES.txt POINTS.csv [PASSES]
// Prints "C grid: R points/s (median of N passes), M matches/point".
// Build: gcc -O2 -I ../shared/bench/cref cgrid.c -lm
#include "geo_common.h"

static int cmpdouble(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s FENCES.txt POINTS.csv [PASSES]\n", argv[0]);
        return 2;
    }
    int passes = argc > 3 ? atoi(argv[3]) : 5;
    if (passes < 1 || passes > 100) passes = 5;
    load(argv[1], argv[2]);
    grid_build(500.0);
    static int out[1 << 16];
    double rates[100];
    long matches = 0, cand = 0;
    for (int k = 0; k < passes; k++) {
        long m = 0;
        double t0 = now();
        for (int i = 0; i < NP; i++) m += grid_query(PX[i], PY[i], out, &cand);
        rates[k] = NP / (now() - t0);
        matches = m;
    }
    qsort(rates, passes, sizeof rates[0], cmpdouble);
    printf("C grid: %.0f points/s (median of %d passes), %.2f matches/point\n", rates[passes / 2],
           passes, (double)matches / NP);
    return 0;
}
