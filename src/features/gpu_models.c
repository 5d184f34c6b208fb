/* Rated power table (see gpu_models.h).  Sources: NVIDIA/AMD product
 * datasheets (maximum/TDP board power; per GPU for a board that carries several,
 * since NVML reports each of them). */
#include "features/gpu_models.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>

struct model {
    const char *a, *b, *c; /* all present, in any order (b and c may be NULL) */
    double watts;
};

/* Most specific first. */
static const struct model models[] = {
    /* data centre */
    {"GB300", NULL, NULL, 1400},
    {"GB200", NULL, NULL, 1200},
    {"B300", NULL, NULL, 1100},
    {"B200", NULL, NULL, 1000},
    {"B100", NULL, NULL, 700},
    {"GH200", NULL, NULL, 1000},
    {"H200", "NVL", NULL, 600},
    {"H200", NULL, NULL, 700},
    {"H100", "PCIe", NULL, 350},
    {"H100", "NVL", NULL, 400},
    {"H100", NULL, NULL, 700},
    {"H800", "PCIe", NULL, 350},
    {"H800", NULL, NULL, 700},
    {"H20", NULL, NULL, 400},
    {"A100", "80GB", "PCIe", 300}, /* "A100 80GB PCIe" */
    {"A100", "PCIe", NULL, 250},
    {"A100", NULL, NULL, 400},
    {"A800", "80GB", "PCIe", 300},
    {"A800", "Active", NULL, 240}, /* "A800 40GB Active", a workstation card */
    {"A800", "PCIe", NULL, 250},
    {"A800", NULL, NULL, 400},
    {"A40", NULL, NULL, 300},
    {"A16", NULL, NULL, 62.5}, /* 250 W board, 4 GPUs */
    {"A30", NULL, NULL, 165},
    {"A10G", NULL, NULL, 300},
    {"A10", NULL, NULL, 150},
    {"A2", NULL, NULL, 60},
    {"L40S", NULL, NULL, 350},
    {"L40", NULL, NULL, 300},
    {"L20", NULL, NULL, 275},
    {"L4", NULL, NULL, 72},
    {"V100", "PCIe", NULL, 250},
    {"V100", "FHHL", NULL, 150},
    {"V100", "SXM3", NULL, 350},
    {"V100", NULL, NULL, 300},
    {"T4", NULL, NULL, 70},
    {"P100", "SXM2", NULL, 300},
    {"P100", NULL, NULL, 250},
    {"P40", NULL, NULL, 250},
    {"P4", NULL, NULL, 75},
    {"M60", NULL, NULL, 150}, /* 300 W board, 2 GPUs */
    {"M10", NULL, NULL, 56},  /* 225 W board, 4 GPUs */
    {"M40", NULL, NULL, 250},
    {"K80", NULL, NULL, 150}, /* 300 W board, 2 GPUs */
    {"K40", NULL, NULL, 235},
    {"K20X", NULL, NULL, 235},
    {"K20", NULL, NULL, 225},
    /* workstation and desktop */
    {"RTX PRO 6000", "Max-Q", NULL, 300},
    {"RTX PRO 6000", NULL, NULL, 600},
    {"RTX PRO 5000", NULL, NULL, 300},
    {"RTX PRO 4500", NULL, NULL, 200},
    {"RTX PRO 4000", "SFF", NULL, 70},
    {"RTX PRO 4000", NULL, NULL, 140},
    {"RTX 6000 Ada", NULL, NULL, 300},
    {"RTX 5000 Ada", NULL, NULL, 250},
    {"RTX 4500 Ada", NULL, NULL, 210},
    {"RTX 4000 SFF Ada", NULL, NULL, 70},
    {"RTX 4000 Ada", NULL, NULL, 130},
    {"RTX 2000 Ada", NULL, NULL, 70},
    {"Quadro RTX 8000", NULL, NULL, 295},
    {"Quadro RTX 6000", NULL, NULL, 295},
    {"Quadro RTX 5000", NULL, NULL, 230},
    {"Quadro RTX 4000", NULL, NULL, 160},
    {"Quadro GV100", NULL, NULL, 250},
    {"Quadro GP100", NULL, NULL, 235},
    {"Quadro P6000", NULL, NULL, 250},
    {"RTX A6000", NULL, NULL, 300},
    {"RTX A5500", NULL, NULL, 230},
    {"RTX A5000", NULL, NULL, 230},
    {"RTX A4500", NULL, NULL, 200},
    {"RTX A4000", NULL, NULL, 140},
    {"RTX A2000", NULL, NULL, 70},
    {"TITAN X", NULL, NULL, 250},
    {"TITAN V", NULL, NULL, 250},
    {"TITAN RTX", NULL, NULL, 280},
    {"GTX TITAN", NULL, NULL, 250}, /* Kepler: TITAN, TITAN Black */
    {"RTX 5090", NULL, NULL, 575},
    {"RTX 5080", NULL, NULL, 360},
    {"RTX 5070 Ti", NULL, NULL, 300},
    {"RTX 5070", NULL, NULL, 250},
    {"RTX 5060 Ti", NULL, NULL, 180},
    {"RTX 5060", NULL, NULL, 145},
    {"RTX 4090 D", NULL, NULL, 425},
    {"RTX 4090", NULL, NULL, 450},
    {"RTX 4080", NULL, NULL, 320},
    {"RTX 4070 Ti", NULL, NULL, 285},
    {"RTX 4070", "SUPER", NULL, 220},
    {"RTX 4070", NULL, NULL, 200},
    {"RTX 4060 Ti", NULL, NULL, 160},
    {"RTX 4060", NULL, NULL, 115},
    {"RTX 3090 Ti", NULL, NULL, 450},
    {"RTX 3090", NULL, NULL, 350},
    {"RTX 3080 Ti", NULL, NULL, 350},
    {"RTX 3080", NULL, NULL, 320},
    {"RTX 3070 Ti", NULL, NULL, 290},
    {"RTX 3070", NULL, NULL, 220},
    {"RTX 3060 Ti", NULL, NULL, 200},
    {"RTX 3060", NULL, NULL, 170},
    {"RTX 2080 Ti", NULL, NULL, 250},
    {"RTX 2080", "SUPER", NULL, 250},
    {"RTX 2080", NULL, NULL, 215},
    {"RTX 2070", "SUPER", NULL, 215},
    {"RTX 2070", NULL, NULL, 175},
    {"RTX 2060", "SUPER", NULL, 175},
    {"RTX 2060", NULL, NULL, 160},
    {"RTX 3050", NULL, NULL, 130},
    {"GTX 1080 Ti", NULL, NULL, 250},
    {"GTX 1080", NULL, NULL, 180},
    {"GTX 1070 Ti", NULL, NULL, 180},
    {"GTX 1070", NULL, NULL, 150},
    {"GTX 1660", "SUPER", NULL, 125},
    {"GTX 1660", NULL, NULL, 120},
    {"GTX 1060", NULL, NULL, 120},
    {"GTX 1650", NULL, NULL, 75},
    /* AMD (not read through NVML; for traces that name them) */
    {"MI355X", NULL, NULL, 1400},
    {"MI325X", NULL, NULL, 1000},
    {"MI300A", NULL, NULL, 550},
    {"MI300X", NULL, NULL, 750},
    {"MI250X", NULL, NULL, 560},
    {"MI250", NULL, NULL, 500},
    {"MI210", NULL, NULL, 300},
    {"MI100", NULL, NULL, 300},
};

/* The end of needle in hay at p, or NULL.  Case-insensitive; a space or '-'
 * in the needle matches any run, possibly empty, of spaces, tabs, '-' and '_'
 * ("RTX  4090", "RTX-4090", "RTX4090" and "NVIDIA_GeForce_RTX_4090" are an
 * "RTX 4090"; "Max Q" a "Max-Q"). */
static const char *match_at(const char *p, const char *needle)
{
    for (; *needle; needle++) {
        if (*needle == ' ' || *needle == '-') {
            while (*p == ' ' || *p == '\t' || *p == '-' || *p == '_')
                p++;
            continue;
        }
        if (tolower((unsigned char)*p) != tolower((unsigned char)*needle))
            return NULL;
        p++;
    }
    return p;
}

/* Substring as match_at.  A model token (token = 1) must also stand alone:
 * not glued to a letter or digit before it ("GH200" is not an "H200") nor
 * followed by a digit ("RTX A4000" is not an "A40", "A1000" not an "A100"); a
 * letter may follow ("H100NVL", "A10G" when listed first). */
static int has(const char *hay, const char *needle, int token)
{
    for (const char *p = hay; *p; p++) {
        const char *e = match_at(p, needle);
        if (!e)
            continue;
        if (token && ((p > hay && isalnum((unsigned char)p[-1])) || isdigit((unsigned char)*e)))
            continue;
        return 1;
    }
    return 0;
}

double wt_gpu_rated_power_w(const char *model)
{
    /* a laptop GPU ("GeForce RTX 4090 Laptop GPU") runs at the power the
     * laptop maker set, 35 to 175 W for one name: not its desktop card's */
    if (!model || has(model, "Laptop", 0) || has(model, "Max-Q Design", 0))
        return NAN; /* Turing and Pascal laptops: "GeForce RTX 2080 with Max-Q Design" */
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
        if (has(model, models[i].a, 1) && (!models[i].b || has(model, models[i].b, 0)) &&
            (!models[i].c || has(model, models[i].c, 0)))
            return models[i].watts;
    return NAN;
}
