/* Rated power table (see gpu_models.h).  Sources: NVIDIA/AMD product
 * datasheets (maximum/TDP board power; per GPU for a board that carries several,
 * since NVML reports each of them). */
#include "features/gpu_models.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

struct model {
    const char *a, *b; /* both substrings must be present (b may be NULL) */
    double watts;
};

/* Most specific first. */
static const struct model models[] = {
    /* data centre */
    {"GB300", NULL, 1400},
    {"GB200", NULL, 1200},
    {"B300", NULL, 1100},
    {"B200", NULL, 1000},
    {"B100", NULL, 700},
    {"GH200", NULL, 1000},
    {"H200", "NVL", 600},
    {"H200", NULL, 700},
    {"H100", "PCIe", 350},
    {"H100", "NVL", 400},
    {"H100", NULL, 700},
    {"H800", "PCIe", 350},
    {"H800", NULL, 700},
    {"H20", NULL, 500},
    {"A100", "80GB PCIe", 300},
    {"A100", "PCIe", 250},
    {"A100", NULL, 400},
    {"A800", "80GB PCIe", 300},
    {"A800", "PCIe", 250},
    {"A800", NULL, 400},
    {"A40", NULL, 300},
    {"A16", NULL, 62.5}, /* 250 W board, 4 GPUs */
    {"A30", NULL, 165},
    {"A10G", NULL, 300},
    {"A10", NULL, 150},
    {"A2", NULL, 60},
    {"L40S", NULL, 350},
    {"L40", NULL, 300},
    {"L20", NULL, 275},
    {"L4", NULL, 72},
    {"V100", "PCIe", 250},
    {"V100", "SXM3", 350},
    {"V100", NULL, 300},
    {"T4", NULL, 70},
    {"P100", "SXM2", 300},
    {"P100", NULL, 250},
    {"P40", NULL, 250},
    {"P4", NULL, 75},
    {"M60", NULL, 150}, /* 300 W board, 2 GPUs */
    {"M10", NULL, 56},  /* 225 W board, 4 GPUs */
    {"M40", NULL, 250},
    {"K80", NULL, 150}, /* 300 W board, 2 GPUs */
    {"K40", NULL, 235},
    {"K20X", NULL, 235},
    {"K20", NULL, 225},
    /* workstation and desktop */
    {"RTX PRO 6000", "Max-Q", 300},
    {"RTX PRO 6000", NULL, 600},
    {"RTX 6000 Ada", NULL, 300},
    {"RTX 5000 Ada", NULL, 250},
    {"RTX 4500 Ada", NULL, 210},
    {"RTX 4000 SFF Ada", NULL, 70},
    {"RTX 4000 Ada", NULL, 130},
    {"Quadro RTX 8000", NULL, 295},
    {"Quadro RTX 6000", NULL, 295},
    {"Quadro RTX 5000", NULL, 230},
    {"Quadro RTX 4000", NULL, 160},
    {"Quadro GV100", NULL, 250},
    {"Quadro P6000", NULL, 250},
    {"RTX A6000", NULL, 300},
    {"RTX A5000", NULL, 230},
    {"RTX A4500", NULL, 200},
    {"RTX A4000", NULL, 140},
    {"RTX A2000", NULL, 70},
    {"TITAN X", NULL, 250},
    {"TITAN V", NULL, 250},
    {"TITAN RTX", NULL, 280},
    {"RTX 5090", NULL, 575},
    {"RTX 5080", NULL, 360},
    {"RTX 5070 Ti", NULL, 300},
    {"RTX 5070", NULL, 250},
    {"RTX 4090", NULL, 450},
    {"RTX 4080", NULL, 320},
    {"RTX 4070 Ti", NULL, 285},
    {"RTX 4070", "SUPER", 220},
    {"RTX 4070", NULL, 200},
    {"RTX 4060 Ti", NULL, 160},
    {"RTX 4060", NULL, 115},
    {"RTX 3090 Ti", NULL, 450},
    {"RTX 3090", NULL, 350},
    {"RTX 3080 Ti", NULL, 350},
    {"RTX 3080", NULL, 320},
    {"RTX 3070 Ti", NULL, 290},
    {"RTX 3070", NULL, 220},
    {"RTX 3060 Ti", NULL, 200},
    {"RTX 3060", NULL, 170},
    {"RTX 2080 Ti", NULL, 250},
    {"RTX 2080", "SUPER", 250},
    {"RTX 2080", NULL, 215},
    {"RTX 2070", "SUPER", 215},
    {"RTX 2070", NULL, 175},
    {"RTX 2060", "SUPER", 175},
    {"RTX 2060", NULL, 160},
    {"RTX 3050", NULL, 130},
    {"GTX 1080 Ti", NULL, 250},
    {"GTX 1080", NULL, 180},
    {"GTX 1070 Ti", NULL, 180},
    {"GTX 1070", NULL, 150},
    {"GTX 1660", "SUPER", 125},
    {"GTX 1660", NULL, 120},
    {"GTX 1060", NULL, 120},
    /* AMD (not read through NVML; for traces that name them) */
    {"MI355X", NULL, 1400},
    {"MI325X", NULL, 1000},
    {"MI300A", NULL, 550},
    {"MI300X", NULL, 750},
    {"MI250X", NULL, 560},
    {"MI250", NULL, 500},
    {"MI210", NULL, 300},
    {"MI100", NULL, 300},
};

/* Case-insensitive substring.  A model token (token = 1) must also stand alone:
 * not glued to a letter or digit before it ("GH200" is not an "H200") nor
 * followed by a digit ("RTX A4000" is not an "A40", "A1000" not an "A100"); a
 * letter may follow ("H100NVL", "A10G" when listed first). */
static int has(const char *hay, const char *needle, int token)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++) {
        if (strncasecmp(p, needle, n))
            continue;
        if (token && ((p > hay && isalnum((unsigned char)p[-1])) || isdigit((unsigned char)p[n])))
            continue;
        return 1;
    }
    return 0;
}

double wt_gpu_rated_power_w(const char *model)
{
    /* a laptop GPU ("GeForce RTX 4090 Laptop GPU") runs at the power the
     * laptop maker set, 35 to 175 W for one name: not its desktop card's */
    if (!model || has(model, "Laptop", 0))
        return NAN;
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
        if (has(model, models[i].a, 1) && (!models[i].b || has(model, models[i].b, 0)))
            return models[i].watts;
    return NAN;
}
