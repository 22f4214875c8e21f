# NixOS module for brain: `services.brain` (the MCP hub, `brain serve`),
# `services.brain.assistant` (`brain agent`: channels, scheduler, inbox, MCP client) and
# `services.brain.replicate` (`brain replicate`: Litestream copying the brain to a replica).
# The flake passes its own package as the default: `nixosModules.default`.
{ defaultPackage ? null }:
{ config, lib, pkgs, ... }:
let
  cfg = config.services.brain;
  acfg = cfg.assistant;
  rcfg = cfg.replicate;
  # A file:// replica is a folder on this machine: the unit may write there, and it is made.
  replicaDir =
    if rcfg.replicaUrl != null && lib.hasPrefix "file://" rcfg.replicaUrl then
      lib.removePrefix "file://" (lib.head (lib.splitString "?" rcfg.replicaUrl))
    else
      null;
  json = pkgs.formats.json { };

  # The hardening both services share (not MemoryDenyWriteExecute: V8 needs writable code pages).
  hardening = stateDir: {
    NoNewPrivileges = true;
    ProtectSystem = "strict";
    ProtectHome = true;
    PrivateTmp = true;
    PrivateDevices = true;
    ProtectKernelTunables = true;
    ProtectKernelModules = true;
    ProtectKernelLogs = true;
    ProtectControlGroups = true;
    ProtectClock = true;
    ProtectHostname = true;
    RestrictAddressFamilies = [ "AF_UNIX" "AF_INET" "AF_INET6" ];
    RestrictNamespaces = true;
    RestrictRealtime = true;
    RestrictSUIDSGID = true;
    LockPersonality = true;
    SystemCallFilter = [ "@system-service" ];
    SystemCallArchitectures = "native";
    CapabilityBoundingSet = "";
    AmbientCapabilities = "";
    UMask = "0077";
    ReadWritePaths = [ stateDir ];
  };

  # The assistant's JSON config, from the options (secrets stay in the environment file).
  assistantConfig = json.generate "brain-assistant.json" (
    lib.filterAttrsRecursive (_: v: v != null) (
      {
        agent = acfg.agent;
        owner = {
          name = acfg.owner.name;
          telegram = acfg.owner.telegram;
          discord = acfg.owner.discord;
        };
        workspace = acfg.workspace;
        models.endpoints = acfg.models;
        relayToOwner = acfg.relayToOwner;
        lane.maxConcurrent = acfg.maxConcurrent;
      }
      // lib.optionalAttrs (acfg.telegram.allowedChatIds != [ ]) {
        telegram.allowedChatIds = acfg.telegram.allowedChatIds;
      }
      // lib.optionalAttrs (acfg.discord.allowedUserIds != [ ]) {
        discord.allowedUserIds = acfg.discord.allowedUserIds;
      }
      // lib.optionalAttrs (acfg.heartbeat != null) { heartbeat = acfg.heartbeat; }
      // lib.optionalAttrs (acfg.mcpServers != { }) { mcpServers = acfg.mcpServers; }
      // acfg.extraConfig
    )
  );
in
{
  options.services.brain = {
    enable = lib.mkEnableOption "brain, the memory and messaging hub for AI agents (brain serve)";
    package = lib.mkOption {
      type = lib.types.package;
      default = defaultPackage;
      defaultText = lib.literalExpression "the flake's brain package";
      description = "The brain package.";
    };
    user = lib.mkOption { type = lib.types.str; default = "brain"; description = "User the services run as."; };
    group = lib.mkOption { type = lib.types.str; default = "brain"; description = "Group of that user."; };
    stateDir = lib.mkOption {
      type = lib.types.str;
      default = "/var/lib/brain";
      description = "Holds the brain database (brain.db); the only path the hub may write.";
    };
    host = lib.mkOption { type = lib.types.str; default = "127.0.0.1"; description = "Address brain serve listens on."; };
    port = lib.mkOption { type = lib.types.port; default = 7337; description = "Port brain serve listens on."; };
    tokensFile = lib.mkOption {
      type = lib.types.nullOr lib.types.path;
      default = null;
      description = ''Bearer tokens, one "TOKEN AGENT" per line; required beyond loopback. Keep it out of the store.'';
    };
    openFirewall = lib.mkOption { type = lib.types.bool; default = false; description = "Open the port."; };

    assistant = {
      enable = lib.mkEnableOption "the assistant service (brain agent) on the same brain";
      agent = lib.mkOption { type = lib.types.str; default = "assistant"; description = "The assistant's agent name."; };
      owner = {
        name = lib.mkOption { type = lib.types.nullOr lib.types.str; default = null; description = "The owner's agent name."; };
        telegram = lib.mkOption { type = lib.types.nullOr lib.types.int; default = null; description = "The owner's Telegram user id."; };
        discord = lib.mkOption { type = lib.types.nullOr lib.types.str; default = null; description = "The owner's Discord user id (digits, as a string)."; };
      };
      stateDir = lib.mkOption {
        type = lib.types.str;
        default = "/var/lib/brain-assistant";
        description = "The assistant's own state (its HOME and XDG folders).";
      };
      workspace = lib.mkOption {
        type = lib.types.str;
        default = "/var/lib/brain-assistant/workspace";
        description = "SOUL.md, AGENTS.md, TOOLS.md and the files the assistant may work on.";
      };
      environmentFile = lib.mkOption {
        type = lib.types.nullOr lib.types.path;
        default = null;
        description = "Secrets as VAR=value lines: ANTHROPIC_API_KEY, TELEGRAM_BOT_TOKEN, DISCORD_BOT_TOKEN, IMAP and MCP variables.";
      };
      models = lib.mkOption {
        type = lib.types.listOf json.type;
        default = [ { provider = "anthropic"; model = "claude-sonnet-4-5"; } ];
        description = "models.endpoints of the config.";
      };
      telegram.allowedChatIds = lib.mkOption { type = lib.types.listOf lib.types.int; default = [ ]; description = "Telegram chats admitted (empty: Telegram off)."; };
      discord.allowedUserIds = lib.mkOption { type = lib.types.listOf lib.types.str; default = [ ]; description = "Discord users admitted (empty: Discord off)."; };
      heartbeat = lib.mkOption { type = lib.types.nullOr json.type; default = null; description = "The heartbeat section of the config."; };
      mcpServers = lib.mkOption { type = lib.types.attrsOf json.type; default = { }; description = "MCP servers the assistant uses; secrets as \${VAR} from the environment file."; };
      relayToOwner = lib.mkOption { type = lib.types.bool; default = false; description = "Forward other agents' exchanges to the owner."; };
      maxConcurrent = lib.mkOption { type = lib.types.ints.between 1 16; default = 2; description = "Sessions whose turns run at once."; };
      extraConfig = lib.mkOption { type = json.type; default = { }; description = "Merged over the generated config."; };
      sandbox = lib.mkOption {
        type = lib.types.bool;
        default = true;
        description = "Run run_command's commands under bubblewrap: the unit may then make user, mount, pid and network namespaces and mount inside them (bwrap needs it); brain agent --check says whether the sandbox is in use.";
      };
    };

    replicate = {
      enable = lib.mkEnableOption "continuous replication of the brain with Litestream (brain replicate)";
      replicaUrl = lib.mkOption {
        type = lib.types.nullOr lib.types.str;
        default = null;
        example = "s3://my-bucket/brain?region=eu-central-1";
        description = "Where the replica goes: file:///dir, s3://bucket/path[?endpoint=…&region=…&force-path-style=true] or sftp://user@host[:port]/path?key-path=/etc/brain/id_ed25519. No secrets here: they go in environmentFile.";
      };
      syncInterval = lib.mkOption {
        type = lib.types.str;
        default = "1s";
        description = "How often new writes are shipped (Go duration: 250ms, 1s, 1m): at most about this much is lost with the machine.";
      };
      environmentFile = lib.mkOption {
        type = lib.types.nullOr lib.types.path;
        default = null;
        description = "Secrets for the replica as VAR=value lines, e.g. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for S3.";
      };
    };
  };

  config = lib.mkMerge [
    (lib.mkIf (cfg.enable || acfg.enable || rcfg.enable) {
      users.users.${cfg.user} = {
        isSystemUser = true;
        group = cfg.group;
        home = cfg.stateDir;
      };
      users.groups.${cfg.group} = { };
      environment.systemPackages = [ cfg.package ];
    })

    (lib.mkIf cfg.enable {
      networking.firewall.allowedTCPPorts = lib.mkIf cfg.openFirewall [ cfg.port ];
      systemd.services.brain = {
        description = "brain MCP hub";
        wantedBy = [ "multi-user.target" ];
        after = [ "network.target" ];
        environment = {
          BRAIN_DB = "${cfg.stateDir}/brain.db";
          HOME = cfg.stateDir;
        };
        serviceConfig = hardening cfg.stateDir // {
          ExecStart = lib.escapeShellArgs (
            [ "${cfg.package}/bin/brain" "serve" "--host" cfg.host "--port" (toString cfg.port) ]
            ++ lib.optionals (cfg.tokensFile != null) [ "--tokens" cfg.tokensFile ]
          );
          User = cfg.user;
          Group = cfg.group;
          StateDirectory = lib.removePrefix "/var/lib/" cfg.stateDir;
          StateDirectoryMode = "0700";
          Restart = "on-failure";
        };
      };
    })

    (lib.mkIf acfg.enable {
      systemd.services.brain-assistant = {
        description = "brain assistant (brain agent)";
        wantedBy = [ "multi-user.target" ];
        after = [ "network-online.target" ] ++ lib.optional cfg.enable "brain.service";
        wants = [ "network-online.target" ];
        environment = {
          BRAIN_DB = "${cfg.stateDir}/brain.db";
          BRAIN_ASSISTANT_CONFIG = "${assistantConfig}";
          HOME = acfg.stateDir;
          XDG_CONFIG_HOME = "${acfg.stateDir}/config";
        };
        preStart = "mkdir -p ${lib.escapeShellArg acfg.workspace}";
        path = lib.optional acfg.sandbox pkgs.bubblewrap;
        serviceConfig = hardening acfg.stateDir // {
          ExecStart = "${cfg.package}/bin/brain agent";
          User = cfg.user;
          Group = cfg.group;
          StateDirectory = [
            (lib.removePrefix "/var/lib/" cfg.stateDir)
            (lib.removePrefix "/var/lib/" acfg.stateDir)
          ];
          StateDirectoryMode = "0700";
          # The brain's file is shared with the hub: both state folders are writable.
          ReadWritePaths = [ cfg.stateDir acfg.stateDir ];
          EnvironmentFile = lib.mkIf (acfg.environmentFile != null) acfg.environmentFile;
          Restart = "on-failure";
          # brain agent stops within 10 s of SIGTERM.
          TimeoutStopSec = 15;
        } // lib.optionalAttrs acfg.sandbox {
          # bubblewrap makes its namespaces and mounts inside them, unprivileged.
          RestrictNamespaces = [ "user" "mnt" "pid" "net" "ipc" "uts" "cgroup" ];
          SystemCallFilter = [ "@system-service" "@mount" ];
        };
      };
    })

    (lib.mkIf rcfg.enable {
      assertions = [
        {
          assertion = rcfg.replicaUrl != null;
          message = "services.brain.replicate.replicaUrl must name the replica (file://, s3:// or sftp://).";
        }
      ];
      systemd.tmpfiles.rules = lib.optional (replicaDir != null) "d ${replicaDir} 0700 ${cfg.user} ${cfg.group} -";
      systemd.services.brain-replicate = {
        description = "brain replication (Litestream)";
        wantedBy = [ "multi-user.target" ];
        # The brain is made by the hub or the assistant; until it exists this unit fails and retries.
        after =
          [ "network-online.target" ]
          ++ lib.optional cfg.enable "brain.service"
          ++ lib.optional acfg.enable "brain-assistant.service";
        wants = [ "network-online.target" ];
        environment = {
          BRAIN_DB = "${cfg.stateDir}/brain.db";
          BRAIN_REPLICA_URL = rcfg.replicaUrl;
          HOME = cfg.stateDir;
        };
        # Litestream from nixpkgs where the package's own binary (linux x64 only) is absent.
        path = [ pkgs.litestream ];
        serviceConfig = hardening cfg.stateDir // {
          ExecStart = lib.escapeShellArgs [ "${cfg.package}/bin/brain" "replicate" "--sync-interval" rcfg.syncInterval ];
          User = cfg.user;
          Group = cfg.group;
          StateDirectory = lib.removePrefix "/var/lib/" cfg.stateDir;
          StateDirectoryMode = "0700";
          # Litestream keeps its shadow WAL beside the brain (.brain.db-litestream); a file://
          # replica is written where it points.
          ReadWritePaths = [ cfg.stateDir ] ++ lib.optional (replicaDir != null) replicaDir;
          EnvironmentFile = lib.mkIf (rcfg.environmentFile != null) rcfg.environmentFile;
          Restart = "on-failure";
          RestartSec = 5;
          TimeoutStopSec = 15;
        };
      };
    })
  ];
}
