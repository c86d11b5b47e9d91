require "json"
require "securerandom"
require "erb"
require "net/http"
require "active_record"

LOG = File.open(ENV.fetch("LAB_PRODUCTION_LOG"), "a")
LOG.sync = true
BACKEND = URI(ENV.fetch("LAB_BACKEND_URL"))
JWT = ENV.fetch("LAB_JWT")
API_TOKEN = ENV.fetch("LAB_API_TOKEN")
ID_CERT = { "cert" => File.read(ENV.fetch("LAB_ID_CERT")), "key" => File.read(ENV.fetch("LAB_ID_KEY")) }.freeze

ActiveRecord::Base.establish_connection(
  adapter: "postgresql", host: ENV.fetch("LAB_PGHOST"), port: Integer(ENV.fetch("LAB_PGPORT")),
  username: "postgres", database: "foreman",
  pool: Integer(ENV.fetch("LAB_POOL")), checkout_timeout: Float(ENV.fetch("LAB_CHECKOUT_TIMEOUT")),
)

class Host < ActiveRecord::Base; end

def log_line(level, rid, message)
  stamp = Time.now.utc.strftime("%Y-%m-%dT%H:%M:%S")
  LOG.write(message.to_s.split("\n").each_with_index.map { |part, i|
    i.zero? ? "#{stamp} [#{level}|app|#{rid}] #{part}\n" : " #{rid} | #{part}\n"
  }.join)
end

SCRIPT = ERB.new(<<~'TEMPLATE')
  #!/bin/sh
  # Registration script for <%= org %>, activation keys <%= keys %>
  <% 200.times do |i| %>echo "step <%= i %> of the registration of <%= name %>"
  <% end %>
TEMPLATE

def render_script(org, keys, name)
  SCRIPT.result_with_hash(org: org, keys: keys, name: name)
end

def backend(method, path, body = nil)
  http = Net::HTTP.new(BACKEND.host, BACKEND.port)
  http.open_timeout = 5
  http.read_timeout = 120
  request = (method == "POST" ? Net::HTTP::Post : Net::HTTP::Get).new(path, "Content-Type" => "application/json")
  request.body = body if body
  response = http.request(request)
  raise "Candlepin returned #{response.code}" unless response.code.start_with?("2")
  response.body
end

def json(status, data)
  [status, { "Content-Type" => "application/json" }, [JSON.generate(data)]]
end

def host_by_uuid(uuid)
  Host.find_by(uuid: uuid) or raise ActiveRecord::RecordNotFound, "Couldn't find consumer '#{uuid}'"
end

def api_authorized?(env)
  header = env["HTTP_AUTHORIZATION"].to_s
  return header == "Bearer #{API_TOKEN}" if header.start_with?("Bearer ")
  return false unless header.start_with?("Basic ")
  _user, token = header.sub("Basic ", "").unpack1("m").split(":", 2)
  token == API_TOKEN
end

UUID = "([0-9a-f-]{36})"
RHSM = "Katello::Api::Rhsm::CandlepinProxiesController"
ROUTES = [
  ["GET", %r{\A/register\z}, "Api::V2::RegistrationController#global", :jwt, lambda { |req, _m|
    org_id = req.params["organization_id"]
    # Foreman finds the organization by its numeric id; the lab's one organization is id 1
    next json(404, { "error" => { "message" => "Organization not found" } }) unless org_id.nil? || org_id == "1"
    Host.count
    [200, { "Content-Type" => "text/plain" }, [render_script(req.params["organization_id"], req.params["activation_keys"], "new host")]]
  }],
  ["POST", %r{\A/register\z}, "Api::V2::RegistrationController#host", :jwt, lambda { |req, _m|
    host = host_by_uuid(req.params["uuid"].to_s)
    host.update!(build: false)
    [200, { "Content-Type" => "text/plain" }, [render_script(host.organization, "", host.name)]]
  }],
  ["GET", %r{\A/rhsm/?\z}, "Katello::Api::V2::RootController#rhsm_resource_list", nil, lambda { |_req, _m|
    json(200, %w[consumers owners status pools users].map { |r| { "rel" => r, "href" => "/rhsm/#{r}" } })
  }],
  ["GET", %r{\A/rhsm/status\z}, "#{RHSM}#server_status", nil, lambda { |_req, _m|
    [200, { "Content-Type" => "application/json" }, [backend("GET", "/candlepin/status")]]
  }],
  ["POST", %r{\A/rhsm/consumers\z}, "#{RHSM}#consumer_activate", nil, lambda { |req, _m|
    facts = JSON.parse(req.body.read)
    name = facts.fetch("name")
    uuid = SecureRandom.uuid
    Host.transaction do
      Host.create!(name: name, uuid: uuid, organization: req.params["owner"].to_s, build: true, registered_at: Time.now)
      backend("POST", "/candlepin/consumers?owner=#{req.params['owner']}", JSON.generate("uuid" => uuid, "facts" => facts["facts"]))
    end
    json(200, { "uuid" => uuid, "name" => name, "idCert" => ID_CERT })
  }],
  ["GET", %r{\A/rhsm/consumers/#{UUID}/certificates/serials\z}, "#{RHSM}#serials", nil, lambda { |_req, m|
    host_by_uuid(m[1])
    [200, { "Content-Type" => "application/json" }, [backend("GET", "/candlepin/consumers/#{m[1]}/certificates/serials")]]
  }],
  ["GET", %r{\A/rhsm/consumers/#{UUID}/(certificates|accessible_content|compliance|content_overrides|release)\z}, "#{RHSM}#get", nil, lambda { |_req, m|
    host_by_uuid(m[1])
    [200, { "Content-Type" => "application/json" }, [backend("GET", "/candlepin/consumers/#{m[1]}/#{m[2]}")]]
  }],
  ["GET", %r{\A/rhsm/consumers/#{UUID}\z}, "#{RHSM}#consumer_show", nil, lambda { |_req, m|
    host = host_by_uuid(m[1])
    json(200, { "uuid" => host.uuid, "name" => host.name, "idCert" => ID_CERT })
  }],
  ["PUT", %r{\A/rhsm/consumers/#{UUID}/profiles\z}, "Katello::Api::Rhsm::CandlepinDynflowProxyController#upload_profiles", nil, lambda { |req, m|
    profile = req.body.read
    JSON.parse(profile)
    host_by_uuid(m[1]).update!(profile: profile)
    json(200, { "id" => SecureRandom.uuid, "label" => "Actions::Katello::Host::UploadProfiles", "state" => "planned" })
  }],
  ["DELETE", %r{\A/rhsm/consumers/#{UUID}\z}, "#{RHSM}#consumer_destroy", nil, lambda { |_req, m|
    host_by_uuid(m[1]).destroy!
    [204, {}, []]
  }],
  ["GET", %r{\A/api/(?:v2/)?status\z}, "Api::V2::HomeController#status", :token, lambda { |_req, _m|
    json(200, { "result" => "ok", "status" => 200, "version" => "3.13.0", "api_version" => 2 })
  }],
  ["GET", %r{\A/api/(?:v2/)?hosts\z}, "Api::V2::HostsController#index", :token, lambda { |req, _m|
    per_page = [[Integer(req.params.fetch("per_page", "20"), exception: false) || 20, 1].max, 1000].min
    page = [Integer(req.params.fetch("page", "1"), exception: false) || 1, 1].max
    scope = Host.order(:id)
    search = req.params["search"].to_s
    scope = scope.where("name LIKE ?", "%#{Host.sanitize_sql_like(Regexp.last_match(1))}%") if search =~ /\Aname\s*~\s*(\S+)\z/
    rows = scope.offset((page - 1) * per_page).limit(per_page).map { |h| { "id" => h.id, "name" => h.name, "uuid" => h.uuid } }
    json(200, { "total" => Host.count, "subtotal" => scope.count, "page" => page, "per_page" => per_page, "search" => search, "results" => rows })
  }],
  ["GET", %r{\A/api/(?:v2/)?hosts/(\d+)\z}, "Api::V2::HostsController#show", :token, lambda { |_req, m|
    host = Host.find(m[1].to_i)
    json(200, { "id" => host.id, "name" => host.name, "uuid" => host.uuid, "organization_name" => host.organization })
  }],
  ["DELETE", %r{\A/api/(?:v2/)?hosts/(\d+)\z}, "Api::V2::HostsController#destroy", :token, lambda { |_req, m|
    host = Host.find(m[1].to_i)
    host.destroy!
    json(200, { "id" => host.id, "name" => host.name })
  }],
  ["GET", %r{\A/api/(?:v2/)?organizations\z}, "Api::V2::OrganizationsController#index", :token, lambda { |_req, _m|
    json(200, { "total" => 1, "results" => [{ "id" => 1, "name" => "Lab", "label" => "Lab" }] })
  }],
  ["GET", %r{\A/api/(?:v2/)?dashboard\z}, "Api::V2::DashboardController#index", :token, lambda { |_req, _m|
    json(200, { "total_hosts" => Host.count, "bad_hosts" => 0, "good_hosts" => Host.where(build: false).count })
  }],
].freeze

class ForemanApp
  def call(env)
    req = Rack::Request.new(env)
    rid = SecureRandom.uuid[0, 8]
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    path = req.path_info
    # the smart proxy's pull-REX job endpoint: not Foreman, so no production.log lines
    return json(200, { "id" => path.split("/").last, "script" => "date", "effective_user" => "root" }) if path.start_with?("/ssh/jobs/")
    route = ROUTES.find { |verb, pattern, *| verb == req.request_method && pattern.match?(path) }
    client = env["HTTP_X_FORWARDED_FOR"].to_s.split(",").first || req.ip
    query = req.query_string.empty? ? "" : "?#{req.query_string}"
    log_line("I", rid, "Started #{req.request_method} \"#{path}#{query}\" for #{client} at #{Time.now.utc.strftime('%Y-%m-%d %H:%M:%S +0000')}")
    unless route
      log_line("I", rid, "Completed 404 Not Found in 0ms (Views: 0.0ms | ActiveRecord: 0.0ms | Allocations: 10)")
      return json(404, { "message" => "Route not found" })
    end
    _verb, pattern, action, auth, handler = route
    log_line("I", rid, "Processing by #{action} as JSON")
    status, headers, body = begin
      if auth == :jwt && env["HTTP_AUTHORIZATION"] != "Bearer #{JWT}"
        json(401, { "error" => { "message" => "Unable to authenticate user" } })
      elsif auth == :token && !api_authorized?(env)
        json(401, { "error" => { "message" => "Unable to authenticate user" } })
      else
        handler.call(req, pattern.match(path))
      end
    rescue ActiveRecord::RecordNotFound => e
      json(404, { "displayMessage" => e.message, "errors" => [e.message] })
    rescue StandardError => e
      log_line("E", rid, "#{e.class}: #{e.message}\n#{(e.backtrace || []).first(3).join("\n")}")
      json(500, { "displayMessage" => e.message, "errors" => [e.message] })
    ensure
      ActiveRecord::Base.connection_handler.clear_active_connections!
    end
    elapsed = ((Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000).round
    reason = Rack::Utils::HTTP_STATUS_CODES.fetch(status, "")
    log_line("I", rid, "Completed #{status} #{reason} in #{elapsed}ms (Views: 0.1ms | ActiveRecord: 0.0ms | Allocations: 1000)")
    [status, headers, body]
  end
end

