/* Our own declarations of the NVML types, constants and function prototypes
 * the nvml source uses, so the project builds without nvml.h or CUDA.
 *
 * Layouts are the x86-64 (LP64) ones from NVIDIA's header as recorded in
 * ../shared/research/telemetry-apis.md, checked here with _Static_assert.
 * Versioned structs carry NVML_STRUCT_VERSION values (size | version << 24),
 * never a bare version number.  Enums are passed as int (SysV ABI).  Only
 * declarations: nothing here calls NVML (see nvml.c), and the test double
 * (tests/fake_nvml.c) implements the same prototypes.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_NVML_API_H
#define WT_NVML_API_H

#include <stddef.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_UNKNOWN = 999,
};

enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
enum {
    NVML_TOTAL_POWER_SAMPLES = 0,
    NVML_GPU_UTILIZATION_SAMPLES = 1,
    NVML_MEMORY_UTILIZATION_SAMPLES = 2,
};
enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5,
    NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
};
/* nvmlDeviceGetArchitecture */
enum {
    NVML_DEVICE_ARCH_KEPLER = 2,
    NVML_DEVICE_ARCH_MAXWELL = 3,
    NVML_DEVICE_ARCH_PASCAL = 4,
    NVML_DEVICE_ARCH_VOLTA = 5,
    NVML_DEVICE_ARCH_TURING = 6,
    NVML_DEVICE_ARCH_AMPERE = 7,
    NVML_DEVICE_ARCH_ADA = 8,
    NVML_DEVICE_ARCH_HOPPER = 9,
    NVML_DEVICE_ARCH_BLACKWELL = 10,
};
#define NVML_DEVICE_ARCH_UNKNOWN 0xffffffffu

#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION 83
#define NVML_FI_DEV_POWER_AVERAGE 185
#define NVML_FI_DEV_POWER_INSTANT 186

#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_MIG_ENABLE 0x1
#define NVML_INIT_FLAG_NO_GPUS 1u
#define NVML_VALUE_NOT_AVAILABLE_ULL 0xFFFFFFFFFFFFFFFFULL
#define NVML_PROCESS_MODE_COMPUTE 0

#define WT_NVML_STRUCT_VERSION(size, ver) ((unsigned int)(size) | ((unsigned int)(ver) << 24U))

typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;

typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 WT_NVML_STRUCT_VERSION(sizeof(nvmlMemory_v2_t), 2)

/* nvmlDeviceGetTemperatureV (12.8 header): nvmlDeviceGetTemperature is
 * deprecated from NVML 13 */
typedef struct {
    unsigned int version;
    int sensorType; /* nvmlTemperatureSensors_t */
    int temperature;
} nvmlTemperature_v1_t;
#define nvmlTemperature_v1 WT_NVML_STRUCT_VERSION(sizeof(nvmlTemperature_v1_t), 1)

typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef union {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    unsigned short usVal;
} nvmlValue_t;

typedef struct {
    unsigned long long timeStamp; /* microseconds (CPU clock; epoch or since boot) */
    nvmlValue_t sampleValue;
} nvmlSample_t;

typedef struct {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_v2_t;

/* What drivers 535.43 <= v < 535.86 wrote into the _v3 entry point. */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessDetail_v1_t;

typedef struct {
    unsigned int version;
    unsigned int mode;
    unsigned int numProcArrayEntries;
    nvmlProcessDetail_v1_t *procArray;
} nvmlProcessDetailList_v1_t;
#define nvmlProcessDetailList_v1 WT_NVML_STRUCT_VERSION(sizeof(nvmlProcessDetailList_v1_t), 1)

typedef struct {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t");
_Static_assert(nvmlMemory_v2 == 0x02000028u, "nvmlMemory_v2");
_Static_assert(sizeof(nvmlTemperature_v1_t) == 12, "nvmlTemperature_v1_t");
_Static_assert(nvmlTemperature_v1 == 0x0100000Cu, "nvmlTemperature_v1");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t");
_Static_assert(sizeof(nvmlValue_t) == 8, "nvmlValue_t");
_Static_assert(sizeof(nvmlSample_t) == 16, "nvmlSample_t");
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t");
_Static_assert(offsetof(nvmlFieldValue_t, valueType) == 24, "nvmlFieldValue_t.valueType");
_Static_assert(offsetof(nvmlFieldValue_t, value) == 32, "nvmlFieldValue_t.value");
_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "nvmlProcessInfo_v1_t");
_Static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "nvmlProcessInfo_v2_t");
_Static_assert(sizeof(nvmlProcessDetail_v1_t) == 32, "nvmlProcessDetail_v1_t");
_Static_assert(sizeof(nvmlProcessDetailList_v1_t) == 24, "nvmlProcessDetailList_v1_t");
_Static_assert(nvmlProcessDetailList_v1 == 0x01000018u, "nvmlProcessDetailList_v1");
_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "nvmlProcessUtilizationSample_t");

/* Function pointer types, one per prototype the backend may resolve. */
typedef nvmlReturn_t (*nvml_void_fn)(void);
typedef nvmlReturn_t (*nvml_init_flags_fn)(unsigned int);
typedef const char *(*nvml_error_string_fn)(nvmlReturn_t);
typedef nvmlReturn_t (*nvml_driver_version_fn)(char *, unsigned int);
typedef nvmlReturn_t (*nvml_count_fn)(unsigned int *);
typedef nvmlReturn_t (*nvml_handle_fn)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*nvml_dev_string_fn)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*nvml_dev_pci_fn)(nvmlDevice_t, nvmlPciInfo_t *);
typedef nvmlReturn_t (*nvml_dev_util_fn)(nvmlDevice_t, nvmlUtilization_t *);
typedef nvmlReturn_t (*nvml_dev_mem_fn)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*nvml_dev_mem2_fn)(nvmlDevice_t, nvmlMemory_v2_t *);
typedef nvmlReturn_t (*nvml_dev_uint_fn)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*nvml_dev_ull_fn)(nvmlDevice_t, unsigned long long *);
typedef nvmlReturn_t (*nvml_dev_int_uint_fn)(nvmlDevice_t, int, unsigned int *);
typedef nvmlReturn_t (*nvml_dev_temp_v_fn)(nvmlDevice_t, nvmlTemperature_v1_t *);
typedef nvmlReturn_t (*nvml_dev_samples_fn)(nvmlDevice_t, int, unsigned long long, int *,
                                            unsigned int *, nvmlSample_t *);
typedef nvmlReturn_t (*nvml_dev_fields_fn)(nvmlDevice_t, int, nvmlFieldValue_t *);
typedef nvmlReturn_t (*nvml_dev_procs_fn)(nvmlDevice_t, unsigned int *, void *);
typedef nvmlReturn_t (*nvml_dev_detail_fn)(nvmlDevice_t, nvmlProcessDetailList_v1_t *);
typedef nvmlReturn_t (*nvml_dev_procutil_fn)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
                                             unsigned int *, unsigned long long);
typedef nvmlReturn_t (*nvml_dev_mig_mode_fn)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*nvml_dev_mig_handle_fn)(nvmlDevice_t, unsigned int, nvmlDevice_t *);

#endif
