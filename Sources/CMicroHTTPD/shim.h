#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* `metrika mcp --listen` on GNU libmicrohttpd. MHD_start_daemon is variadic, which Swift cannot call,
   and a request's body arrives in pieces: this shim gathers a body (at most `max_body` bytes; a larger
   one is refused at its Content-Length or dropped as it comes) and hands each whole request to one
   handler. One thread per connection: the handler may block its thread until the answer is ready. */

typedef enum MHD_Result (*metrika_http_handler)(
    void *context, struct MHD_Connection *connection, const char *method, const char *url, const char *body,
    size_t length, int too_large);

struct metrika_http_server {
    metrika_http_handler handler;
    void *context;
    size_t max_body;
};

struct metrika_http_upload {
    char *data;
    size_t length;
    int too_large;
};

static inline enum MHD_Result metrika_http_refuse_large(struct MHD_Connection *connection) {
    static const char text[] = "{\"error\":\"the request body is larger than 1 MB\"}";
    struct MHD_Response *response =
        MHD_create_response_from_buffer(sizeof text - 1, (void *)text, MHD_RESPMEM_PERSISTENT);
    if (response == NULL) { return MHD_NO; }
    MHD_add_response_header(response, "Content-Type", "application/json");
    MHD_add_response_header(response, "Connection", "close");
    enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_CONTENT_TOO_LARGE, response);
    MHD_destroy_response(response);
    return result;
}

static inline enum MHD_Result metrika_http_access(
    void *cls, struct MHD_Connection *connection, const char *url, const char *method, const char *version,
    const char *upload_data, size_t *upload_data_size, void **con_cls) {
    (void)version;
    struct metrika_http_server *server = cls;
    struct metrika_http_upload *upload = *con_cls;
    if (upload == NULL) {
        upload = calloc(1, sizeof *upload);
        if (upload == NULL) { return MHD_NO; }
        *con_cls = upload;
        const char *declared = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
        if (declared != NULL && strtoull(declared, NULL, 10) > server->max_body) {
            upload->too_large = 1;
            return metrika_http_refuse_large(connection);
        }
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        if (!upload->too_large) {
            if (upload->length + *upload_data_size > server->max_body) {
                upload->too_large = 1;
                free(upload->data);
                upload->data = NULL;
                upload->length = 0;
            } else {
                char *grown = realloc(upload->data, upload->length + *upload_data_size);
                if (grown == NULL) { return MHD_NO; }
                memcpy(grown + upload->length, upload_data, *upload_data_size);
                upload->data = grown;
                upload->length += *upload_data_size;
            }
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    return server->handler(
        server->context, connection, method, url, upload->data != NULL ? upload->data : "", upload->length,
        upload->too_large);
}

static inline void metrika_http_completed(
    void *cls, struct MHD_Connection *connection, void **con_cls, enum MHD_RequestTerminationCode code) {
    (void)cls;
    (void)connection;
    (void)code;
    struct metrika_http_upload *upload = *con_cls;
    if (upload != NULL) {
        free(upload->data);
        free(upload);
        *con_cls = NULL;
    }
}

/* Listens on `address` (IPv4 or IPv6), one thread per connection, at most `connection_limit`
   connections, each closed after `timeout_seconds` without traffic (the header's read too). */
static inline struct MHD_Daemon *metrika_http_start(
    struct metrika_http_server *server, const struct sockaddr *address, int ipv6, unsigned int connection_limit,
    unsigned int timeout_seconds, size_t connection_memory) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    /* A thread per connection would otherwise grow an arena of its own (up to 8 a core) and keep its
       memory: two arenas hold the server's few, short-lived allocations at 50 connections as well. */
    mallopt(M_ARENA_MAX, 2);
    if (ipv6) { flags |= MHD_USE_IPv6; }
    return MHD_start_daemon(
        flags, 0, NULL, NULL, metrika_http_access, server, MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit, MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory, MHD_OPTION_NOTIFY_COMPLETED,
        metrika_http_completed, NULL, MHD_OPTION_END);
}

/* The port the daemon listens on (the one the system chose for port 0). */
static inline int metrika_http_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info != NULL ? (int)info->port : 0;
}

static inline enum MHD_Result metrika_http_yes(void) { return MHD_YES; }
static inline enum MHD_Result metrika_http_no(void) { return MHD_NO; }

/* The request's headers (`arguments` 0) or query arguments (1), each given to `iterator`. */
static inline int metrika_http_values(
    struct MHD_Connection *connection, int arguments, MHD_KeyValueIterator iterator, void *context) {
    return MHD_get_connection_values(
        connection, arguments ? MHD_GET_ARGUMENT_KIND : MHD_HEADER_KIND, iterator, context);
}

/* A response holding a copy of `length` bytes. */
static inline struct MHD_Response *metrika_http_response_copy(const void *data, size_t length) {
    return MHD_create_response_from_buffer(length, (void *)data, MHD_RESPMEM_MUST_COPY);
}

static inline ssize_t metrika_http_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t metrika_http_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
static inline uint64_t metrika_http_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
#endif
