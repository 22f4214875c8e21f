{
  description = "brain: a self-hosted memory and messaging hub for AI agents (SQLite + FTS5 + sqlite-vec, MCP, CLI)";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";

  outputs =
    { self, nixpkgs }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
        "x86_64-darwin"
        "aarch64-darwin"
      ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      packages = forAllSystems (pkgs: rec {
        brain = pkgs.buildNpmPackage {
          # package.json's name (the npm name `brain` is someone else's); the command is `brain`.
          pname = "agent-brain-hub";
          version = "0.1.0";
          src = self;
          nodejs = pkgs.nodejs_20;
          # Refresh after changing package-lock.json: `nix run nixpkgs#prefetch-npm-deps package-lock.json`.
          npmDepsHash = pkgs.lib.fakeHash;
          # better-sqlite3 compiles its bundled SQLite with node-gyp.
          nativeBuildInputs = [
            pkgs.python3
            pkgs.gnumake
          ] ++ pkgs.lib.optionals pkgs.stdenv.isLinux [ pkgs.autoPatchelfHook ];
          buildInputs = pkgs.lib.optionals pkgs.stdenv.isLinux [ pkgs.stdenv.cc.cc.lib ];
          npmBuildScript = "build";
          # brain's ranking extension (binding.gyp, src/native/brain_fts.c): built after the
          # TypeScript and installed beside dist/, where the library looks for it.
          postBuild = "npm run build:native";
          postInstall = ''
            mkdir -p $out/lib/node_modules/agent-brain-hub/build/Release
            cp build/Release/brain_fts.node $out/lib/node_modules/agent-brain-hub/build/Release/
          '';
          doCheck = false;
          meta = {
            description = "A memory and messaging hub for AI agents";
            mainProgram = "brain";
            license = pkgs.lib.licenses.mit;
          };
        };
        default = brain;
      });

      # services.brain (brain serve) and services.brain.assistant (brain agent): nix/module.nix.
      nixosModules.default =
        { pkgs, ... }@args:
        import ./nix/module.nix { defaultPackage = self.packages.${pkgs.system}.brain; } args;

      apps = forAllSystems (pkgs: {
        default = {
          type = "app";
          program = "${self.packages.${pkgs.system}.brain}/bin/brain";
        };
      });

      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = [
            pkgs.nodejs_20
            pkgs.python3
            pkgs.gnumake
            pkgs.gcc
            pkgs.sqlite
            pkgs.jq
          ];
          shellHook = ''
            echo "brain dev shell: node $(node --version). Run: npm install && npx brain demo"
          '';
        };
      });
    };
}
