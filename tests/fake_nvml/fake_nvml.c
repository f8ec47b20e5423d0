/*
 * A fake libnvidia-ml.so.1 for tests: just the entry points pynvml calls to read the
 * driver version, the driver's CUDA version and each GPU's name, UUID, memory and
 * compute capability.
 *
 * It reads the file named by FAKE_NVML_CONFIG, one `key=value` per line:
 *   driver=550.54.14            nvmlSystemGetDriverVersion
 *   cuda=12040                  nvmlSystemGetCudaDriverVersion(_v2)
 *   gpu=NAME|UUID|MIB|MAJ|MIN   one GPU (repeatable, in index order)
 *   init_error=18               nvmlInit* returns this code
 *   init_sleep=30               nvmlInit* sleeps this many seconds first (a hang)
 *   init_marker=PATH            nvmlInit* creates PATH on entry (a test waits for it)
 *   init_crash=1                nvmlInit* raises SIGSEGV
 *   fail_call=NAME:CODE         the entry point NAME returns CODE (repeatable)
 *
 * Built with -DFAKE_NVML_OLD_DRIVER it lacks the entry points that old drivers lack,
 * so pynvml's lookups of them fail with NVML_ERROR_FUNCTION_NOT_FOUND.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_GPUS 16
#define MAX_FAILS 16
#define FIELD 128

typedef int nvmlReturn_t;

enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_UNKNOWN = 999,
};

typedef struct {
    char name[FIELD];
    char uuid[FIELD];
    unsigned long long memory_mib;
    int major;
    int minor;
} fake_gpu;

typedef struct {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

typedef struct {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t;

typedef fake_gpu *nvmlDevice_t;

static int loaded;
static int initialized;
static char driver[FIELD] = "550.54.14";
static int cuda = 12040;
static fake_gpu gpus[MAX_GPUS];
static unsigned int gpu_count;
static int init_error;
static int init_sleep;
static char init_marker[512];
static int init_crash;
static char fail_names[MAX_FAILS][FIELD];
static int fail_codes[MAX_FAILS];
static int fail_count;

static void copy_field(char *target, const char *source, size_t length) {
    size_t n = length < FIELD - 1 ? length : FIELD - 1;
    memcpy(target, source, n);
    target[n] = '\0';
}

static void parse_gpu(const char *value) {
    fake_gpu *gpu;
    const char *bar1, *bar2;
    if (gpu_count >= MAX_GPUS)
        return;
    bar1 = strchr(value, '|');
    bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
    if (!bar2)
        return;
    gpu = &gpus[gpu_count++];
    copy_field(gpu->name, value, (size_t)(bar1 - value));
    copy_field(gpu->uuid, bar1 + 1, (size_t)(bar2 - bar1 - 1));
    if (sscanf(bar2 + 1, "%llu|%d|%d", &gpu->memory_mib, &gpu->major, &gpu->minor) != 3)
        gpu_count--;
}

static void parse_fail(const char *value) {
    const char *colon = strrchr(value, ':');
    if (!colon || fail_count >= MAX_FAILS)
        return;
    copy_field(fail_names[fail_count], value, (size_t)(colon - value));
    fail_codes[fail_count++] = atoi(colon + 1);
}

static void load_config(void) {
    const char *path;
    FILE *file;
    char line[512];
    if (loaded)
        return;
    loaded = 1;
    path = getenv("FAKE_NVML_CONFIG");
    if (!path || !(file = fopen(path, "r")))
        return;
    while (fgets(line, sizeof line, file)) {
        char *value = strchr(line, '=');
        line[strcspn(line, "\r\n")] = '\0';
        if (!value)
            continue;
        *value++ = '\0';
        if (!strcmp(line, "driver"))
            copy_field(driver, value, strlen(value));
        else if (!strcmp(line, "cuda"))
            cuda = atoi(value);
        else if (!strcmp(line, "gpu"))
            parse_gpu(value);
        else if (!strcmp(line, "init_error"))
            init_error = atoi(value);
        else if (!strcmp(line, "init_sleep"))
            init_sleep = atoi(value);
        else if (!strcmp(line, "init_marker"))
            snprintf(init_marker, sizeof init_marker, "%s", value);
        else if (!strcmp(line, "init_crash"))
            init_crash = atoi(value);
        else if (!strcmp(line, "fail_call"))
            parse_fail(value);
    }
    fclose(file);
}

/* The configured failure of entry point `name`, or NVML_SUCCESS. */
static nvmlReturn_t failure(const char *name) {
    int i;
    load_config();
    for (i = 0; i < fail_count; i++)
        if (!strcmp(fail_names[i], name))
            return fail_codes[i];
    return NVML_SUCCESS;
}

static nvmlReturn_t put_string(char *buffer, unsigned int length, const char *value) {
    if (!buffer)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(value) + 1 > length)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    strcpy(buffer, value);
    return NVML_SUCCESS;
}

/* Every device call starts here: initialised, a known handle, no configured failure. */
static nvmlReturn_t check_device(const char *name, nvmlDevice_t device) {
    nvmlReturn_t fail = failure(name);
    if (fail)
        return fail;
    if (!initialized)
        return NVML_ERROR_UNINITIALIZED;
    if (device < gpus || device >= gpus + gpu_count)
        return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
    (void)flags;
    load_config();
    if (init_marker[0]) {
        FILE *marker = fopen(init_marker, "w");
        if (marker)
            fclose(marker);
    }
    if (init_sleep > 0)
        sleep((unsigned int)init_sleep);
    if (init_crash)
        raise(SIGSEGV);
    if (init_error)
        return init_error;
    initialized = 1;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void) { return nvmlInitWithFlags(0); }

nvmlReturn_t nvmlInit(void) { return nvmlInitWithFlags(0); }

nvmlReturn_t nvmlShutdown(void) {
    initialized = 0;
    return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
    case NVML_SUCCESS:
        return "Success";
    case NVML_ERROR_UNINITIALIZED:
        return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
        return "Invalid Argument";
    case NVML_ERROR_INSUFFICIENT_SIZE:
        return "Insufficient Size";
    default:
        return "Fake NVML error";
    }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    nvmlReturn_t fail = failure("nvmlSystemGetDriverVersion");
    if (fail)
        return fail;
    if (!initialized)
        return NVML_ERROR_UNINITIALIZED;
    return put_string(version, length, driver);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *version) {
    nvmlReturn_t fail = failure("nvmlSystemGetCudaDriverVersion");
    if (fail)
        return fail;
    if (!version)
        return NVML_ERROR_INVALID_ARGUMENT;
    *version = cuda;
    return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD_DRIVER
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version) {
    nvmlReturn_t fail = failure("nvmlSystemGetCudaDriverVersion_v2");
    if (fail)
        return fail;
    if (!version)
        return NVML_ERROR_INVALID_ARGUMENT;
    *version = cuda;
    return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    nvmlReturn_t fail = failure("nvmlDeviceGetCount_v2");
    if (fail)
        return fail;
    if (!initialized)
        return NVML_ERROR_UNINITIALIZED;
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = gpu_count;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *count) { return nvmlDeviceGetCount_v2(count); }

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    nvmlReturn_t fail = failure("nvmlDeviceGetHandleByIndex_v2");
    if (fail)
        return fail;
    if (!initialized)
        return NVML_ERROR_UNINITIALIZED;
    if (!device || index >= gpu_count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = &gpus[index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) {
    return nvmlDeviceGetHandleByIndex_v2(index, device);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    nvmlReturn_t check = check_device("nvmlDeviceGetName", device);
    return check ? check : put_string(name, length, device->name);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    nvmlReturn_t check = check_device("nvmlDeviceGetUUID", device);
    return check ? check : put_string(uuid, length, device->uuid);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    nvmlReturn_t check = check_device("nvmlDeviceGetMemoryInfo", device);
    if (check)
        return check;
    if (!memory)
        return NVML_ERROR_INVALID_ARGUMENT;
    memory->total = device->memory_mib * 1024ULL * 1024ULL;
    memory->used = 0;
    memory->free = memory->total;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    nvmlReturn_t check = check_device("nvmlDeviceGetMemoryInfo_v2", device);
    if (check)
        return check;
    if (!memory)
        return NVML_ERROR_INVALID_ARGUMENT;
    memory->total = device->memory_mib * 1024ULL * 1024ULL;
    memory->reserved = 0;
    memory->used = 0;
    memory->free = memory->total;
    return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
    nvmlReturn_t check = check_device("nvmlDeviceGetCudaComputeCapability", device);
    if (check)
        return check;
    if (!major || !minor)
        return NVML_ERROR_INVALID_ARGUMENT;
    *major = device->major;
    *minor = device->minor;
    return NVML_SUCCESS;
}
#endif
